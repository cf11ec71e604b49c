import Hummingbird
import NIOCore

/// The stylesheet and the script, from the binary.
enum AssetRoutes {
    static func add(to router: some RouterMethods<WebContext>) {
        router.get("assets/app.css") { _, _ in asset(Stylesheet.text, type: "text/css; charset=utf-8") }
        router.get("assets/app.js") { _, _ in asset(Script.text, type: "text/javascript; charset=utf-8") }
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: "max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
