import Foundation
package import HTTPTypes
package import HummingbirdTesting
import NIOCore
import Synchronization

/// A client that keeps cookies, as a browser does, and reads CSRF tokens off pages.
package final class Browser: Sendable {
    /// The password test fixtures give their users.
    package static let password = "correct horse battery"

    package let client: any TestClientProtocol
    private let jar = Mutex<[String: String]>([:])

    package init(client: any TestClientProtocol) {
        self.client = client
    }

    package struct Page {
        package var status: HTTPResponse.Status
        package var headers: HTTPFields
        package var text: String

        package init(status: HTTPResponse.Status, headers: HTTPFields, text: String) {
            self.status = status
            self.headers = headers
            self.text = text
        }

        package var location: String? { headers[.location] }

        /// The value of the first `name="csrf"` field.
        package var csrf: String? {
            guard let range = text.range(of: "name=\"csrf\" value=\"") else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    package var cookies: [String: String] { jar.withLock { $0 } }

    package func forget(_ name: String) {
        _ = jar.withLock { $0.removeValue(forKey: name) }
    }

    package func get(_ uri: String) async throws -> Page {
        try await send(uri, method: .get, body: nil)
    }

    package func post(_ uri: String, _ fields: [String: String]) async throws -> Page {
        let body = fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }.joined(separator: "&")
        return try await send(uri, method: .post, body: body)
    }

    /// Signs in as `user`; returns the page the app redirected to.
    @discardableResult
    package func signIn(_ user: String, password: String = Browser.password) async throws -> Page {
        let form = try await get("/login")
        return try await post("/login", ["csrf": form.csrf ?? "", "username": user, "password": password, "next": "/"])
    }

    private func send(_ uri: String, method: HTTPRequest.Method, body: String?) async throws -> Page {
        var headers: HTTPFields = [:]
        let cookieHeader = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { headers[.cookie] = cookieHeader }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let response = try await client.execute(
            uri: uri,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        for field in response.headers[values: .setCookie] {
            let pair = field.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            let expired = field.contains("Max-Age=0")
            jar.withLock { $0[name] = expired || value.isEmpty ? nil : value }
        }
        return Page(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
}
