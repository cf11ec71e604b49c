import CareStore
import Foundation
import Hummingbird
import Mustache

/// Renders a page: its template with the page's values, inside the layout (navigation, sign-out form, the live
/// region for screen readers).
struct PageRenderer: Sendable {
    private let library: MustacheLibrary
    let navigation: PageNavigation

    init(navigation: PageNavigation = .bridge) {
        self.navigation = navigation
        var library = MustacheLibrary()
        for (name, source) in Templates.all {
            do {
                try library.register(source, named: name)
            } catch {
                preconditionFailure("care app template '\(name)' does not parse: \(error)")
            }
        }
        self.library = library
    }

    func page(
        title: String,
        template: String,
        content: [String: Any],
        session: AppSession?,
        status: HTTPResponse.Status = .ok,
        live: String? = nil
    ) -> Response {
        var values = content
        values["csrf"] = session?.csrfToken ?? ""
        let body = library.render(values, withTemplate: template) ?? ""
        var layout: [String: Any] = ["title": title, "content": body]
        if let session {
            layout["user"] =
                [
                    "displayName": session.user.displayName, "csrf": session.csrfToken,
                    "showPatients": session.user.role == .clinician || session.user.role == .admin
                        || session.user.patientIDs.count > 1,
                    "bridge": navigation == .bridge, "hub": navigation == .hub,
                ] as [String: Any]
        }
        if let live { layout["live"] = live }
        let html = library.render(layout, withTemplate: "layout") ?? ""
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}

/// JSON responses for the API routes.
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
