package import HTTPTypes

/// The walk of every patient route as a user not linked to that patient: each must answer 403 and show none of
/// the patient's data. The bridge's care app (`CareAppAccessTests`) walks its own patient routes and the
/// overview's; the hub's dashboard (`HubDashboardTests`) walks the overview's, which it serves from the same
/// routes over PostgreSQL. A route added to either is added here, once.
package enum PatientAccessWalk {
    package typealias Route = (method: HTTPRequest.Method, path: String)

    /// The overview's pages of one patient, served by the bridge's care app and by the hub's dashboard.
    package static func overviewRoutes(_ patient: String) -> [Route] {
        [
            (.get, "/overview/\(patient)"), (.get, "/overview/\(patient)/record"),
            (.get, "/overview/\(patient)/record?day=2026-11-26"), (.post, "/overview/\(patient)/acknowledge"),
        ]
    }

    /// Requests each route as the signed-in user of `browser` (a post with `form` and the page's CSRF token).
    /// - Returns: what went wrong: a route that did not answer 403, or showed one of `secrets`.
    package static func refusals(
        _ routes: [Route],
        browser: Browser,
        csrf: String,
        form: [String: String],
        secrets: [String]
    ) async throws -> [String] {
        var problems: [String] = []
        for route in routes {
            var fields = form
            fields["csrf"] = csrf
            let page =
                route.method == .post ? try await browser.post(route.path, fields) : try await browser.get(route.path)
            if page.status != .forbidden { problems.append("\(route.method) \(route.path): \(page.status)") }
            for secret in secrets where page.text.contains(secret) {
                problems.append("\(route.method) \(route.path) shows \(secret)")
            }
        }
        return problems
    }
}
