/// A chart as drawing primitives in its own coordinate space (origin top left, y down), rendered as inline SVG
/// for HTML and as vector drawing for PDF, so both documents show the same chart.
public struct Chart: Sendable, Hashable {
    /// An RGB colour, components 0…1.
    public struct Color: Sendable, Hashable {
        public var red: Double
        public var green: Double
        public var blue: Double

        public init(_ red: Double, _ green: Double, _ blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        public var hex: String {
            func byte(_ value: Double) -> String {
                let text = String(Int((max(0, min(1, value)) * 255).rounded()), radix: 16)
                return text.count == 1 ? "0" + text : text
            }
            return "#" + byte(red) + byte(green) + byte(blue)
        }

        public static let ink = Color(0.13, 0.15, 0.18)
        public static let grid = Color(0.85, 0.87, 0.9)
        public static let blue = Color(0.16, 0.42, 0.75)
        public static let orange = Color(0.93, 0.55, 0.17)
        public static let band = Color(0.86, 0.94, 0.86)
        public static let alarm = Color(0.98, 0.88, 0.86)
        public static let red = Color(0.8, 0.15, 0.12)
    }

    public enum Anchor: String, Sendable, Hashable {
        case start, middle, end
    }

    public enum Shape: Sendable, Hashable {
        case rect(x: Double, y: Double, width: Double, height: Double, fill: Color)
        case line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: Color, width: Double)
        case polyline(points: [[Double]], stroke: Color, width: Double)
        case circle(x: Double, y: Double, radius: Double, fill: Color)
        case text(x: Double, y: Double, text: String, size: Double, anchor: Anchor, color: Color, bold: Bool)
    }

    public var title: String
    /// What the chart shows, in words (the HTML `aria-label` and `<desc>`).
    public var description: String
    public var width: Double
    public var height: Double
    public var shapes: [Shape]

    public init(title: String, description: String, width: Double, height: Double, shapes: [Shape]) {
        self.title = title
        self.description = description
        self.width = width
        self.height = height
        self.shapes = shapes
    }
}
