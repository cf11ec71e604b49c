import CareStore
import Foundation
import Hummingbird

/// A posted `application/x-www-form-urlencoded` form, read once, with its CSRF token checked against the
/// session's before anything else happens.
struct FormBody {
    var fields: [String: String]

    subscript(_ name: String) -> String? {
        fields[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func read(_ request: Request, context: WebContext) async throws -> FormBody {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw WebError(.contentTooLarge, "The form is too large.")
        }
        return FormBody(fields: parse(String(buffer: buffer)))
    }

    /// Reads the form and refuses it unless its `csrf` field equals the session's token.
    static func checked(_ request: Request, context: WebContext) async throws -> (FormBody, AppSession) {
        guard let session = context.session else {
            throw WebError(.unauthorized, "Your session has ended; sign in again.")
        }
        let form = try await read(request, context: context)
        guard let token = form["csrf"], SessionToken.equal(token, session.csrfToken) else {
            throw WebError(
                .forbidden,
                "This form has expired or did not come from CareBridge. Reload the page and try again."
            )
        }
        return (form, session)
    }

    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
