import HTTPTypes
import Hummingbird

/// Counts every answer of the hub by route and status (``HubMetrics``), errors thrown by a handler included.
struct HubRequestMetrics<Context: RequestContext>: RouterMiddleware {
    let metrics: HubMetrics

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            metrics.request(path: request.uri.path, status: response.status.code)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.request(path: request.uri.path, status: status.code)
            throw error
        }
    }
}
