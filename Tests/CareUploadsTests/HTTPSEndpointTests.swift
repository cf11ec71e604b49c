import CareUploads
import Testing

/// What an upload address shows of itself in messages: never the credentials or the query where tokens live.
@Suite struct HTTPSEndpointTests {
    @Test(arguments: [
        ("https://user:s3cret@hub.example.org:8443/sync?token=s3cret#x", "https://***@hub.example.org:8443/sync?***"),
        ("http://127.0.0.1:8080/hook", "http://127.0.0.1:8080/hook"),
        ("http://h/a?k=s3cret", "http://h/a?***"),
        ("not a url s3cret", "***"),
    ])
    func redactionRemovesUserInfoAndQuery(url: String, shown: String) {
        #expect(HTTPSEndpoint.redacted(url) == shown)
    }

    @Test func credentialsInTheURLStayOutOfItsTargetAndAddress() throws {
        let endpoint = try HTTPSEndpoint(url: "https://user:s3cret@hub.example.org/sync")
        #expect(endpoint.target == "hub.example.org:443")
        #expect(!endpoint.url.contains("s3cret") && !endpoint.url.contains("user"))
    }
}
