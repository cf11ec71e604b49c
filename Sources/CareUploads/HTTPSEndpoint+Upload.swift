import NIOCore

extension HTTPSEndpoint {
    /// Posts one upload (a Nightscout batch, a FHIR Bundle) and confirms it: a 2xx answer is returned, any other is
    /// an ``UploadFailure`` with the status, the receiver's `Retry-After` and a reason (never the credential).
    /// - Parameters:
    ///   - receiver: the receiver as a message names it (`Nightscout`, `the FHIR server`).
    ///   - refusal: what a 401/403 means, naming the credential to check.
    /// - Returns: the receiver's 2xx answer.
    /// - Throws: ``UploadFailure`` with the receiver's status (401/403: `refusal`; 429/503 with its
    ///   `Retry-After`), or without one for the connection's error.
    func upload(
        _ body: String,
        contentType: String = "application/json",
        headers: [(String, String)],
        timeout: Duration,
        answerLimit: Int,
        receiver: String,
        refusal: String
    ) async throws(UploadFailure) -> Response {
        let response: Response
        do {
            response = try await post(
                body,
                contentType: contentType,
                headers: headers,
                timeout: timeout,
                answerLimit: answerLimit
            )
        } catch {
            throw UploadFailure(description: "\(receiver): \(error)")
        }
        let status = response.status
        guard (200..<300).contains(status) else {
            let reason: String
            switch status {
            case 401, 403: reason = refusal
            case 429: reason = "too many requests"
            default:
                let text = String(buffer: response.body).prefix(200)
                reason = text.isEmpty ? "no reason given" : String(text)
            }
            throw UploadFailure(
                status: status,
                retryAfter: response.retryAfter,
                description: "\(receiver) at \(target) answered HTTP \(status): \(reason)"
            )
        }
        return response
    }
}
