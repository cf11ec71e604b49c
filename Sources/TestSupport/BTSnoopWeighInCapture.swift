package import Foundation

/// A weigh-in as a phone's snoop log shows it, built packet by packet: advertising and scan response, connection,
/// MTU, primary services, the characteristics of two of them, the CCCD found and written, a read of the
/// manufacturer name, the measurement indicated (split over ACL fragments), the confirmation, and the scale
/// hanging up (remote user terminated). Without `discovery`, the capture starts after the services were found
/// (a bonded device that is not discovered again); without `advertising`, it starts at the connection (a phone
/// that connects to a bonded device without scanning).
package struct BTSnoopWeighInCapture: Sendable {
    package let bytes: [UInt8]
    /// When the read response and the indication's last fragment were captured.
    package let readTime: Date
    package let indicationTime: Date

    package static let scale: [UInt8] = [0xC8, 0x47, 0x8C, 0x00, 0x12, 0x34]
    package static let scaleAddress = "C8:47:8C:00:12:34"
    package static let start = Date(timeIntervalSince1970: 1_795_158_000)  // 2026-11-20T07:00:00Z
    /// Weight Measurement: flags 0x0E (time stamp, user ID, BMI and height), 14500 × 0.005 kg = 72.5 kg,
    /// 2026-11-20 07:58:02, user 1, BMI 23.7, height 1.75 m.
    package static let weighIn: [UInt8] = [
        0x0E, 0xA4, 0x38, 0xEA, 0x07, 0x0B, 0x14, 0x07, 0x3A, 0x02, 0x01, 0xED, 0x00, 0xD6, 0x06,
    ]
    package static let acme = Array("Acme Health".utf8)

    package init(format: BTSnoopCaptureBuilder.Format, discovery: Bool = true, advertising: Bool = true) {
        let scale = Self.scale
        var capture = BTSnoopCaptureBuilder(format: format, start: Self.start)
        if advertising {
            // ADV_IND: flags, complete list of 16-bit UUIDs (181D), complete local name "WS-100".
            capture.advertisingReport(
                type: 0x00,
                address: scale,
                data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x1D, 0x18, 0x07, 0x09] + Array("WS-100".utf8),
                rssi: -61
            )
            // SCAN_RSP: manufacturer data, company 0x020E, bytes AA BB.
            capture.advertisingReport(
                type: 0x04,
                address: scale,
                data: [0x05, 0xFF, 0x0E, 0x02, 0xAA, 0xBB],
                rssi: -62
            )
        }
        capture.connectionComplete(address: scale)
        capture.att([0x02, 0x17, 0x00], received: false)  // Exchange MTU Request, 23
        capture.att([0x03, 0x17, 0x00], received: true)
        if discovery {
            // Read By Group Type Request 0x0001–0xFFFF, type 0x2800 (primary service)
            capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
            // length 6: 0x0001–0x0005 1800, 0x0010–0x0015 181D, 0x0020–0x0024 180A
            capture.att(
                [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x10, 0x00, 0x15, 0x00, 0x1D, 0x18]
                    + [0x20, 0x00, 0x24, 0x00, 0x0A, 0x18],
                received: true
            )
            capture.att([0x10, 0x25, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
            capture.att([0x01, 0x10, 0x25, 0x00, 0x0A], received: true)  // Error: attribute not found
            // Read By Type Request 0x0010–0x0015, type 0x2803 (characteristic declaration)
            capture.att([0x08, 0x10, 0x00, 0x15, 0x00, 0x03, 0x28], received: false)
            // length 7: decl 0x0011 indicate, value 0x0012, 2A9D; decl 0x0014 read, value 0x0015, 2A9E
            capture.att(
                [0x09, 0x07, 0x11, 0x00, 0x20, 0x12, 0x00, 0x9D, 0x2A, 0x14, 0x00, 0x02, 0x15, 0x00, 0x9E, 0x2A],
                received: true
            )
            capture.att([0x08, 0x20, 0x00, 0x24, 0x00, 0x03, 0x28], received: false)
            // decl 0x0021 read, value 0x0022, 2A29; decl 0x0023 read, value 0x0024, 2A24
            capture.att(
                [0x09, 0x07, 0x21, 0x00, 0x02, 0x22, 0x00, 0x29, 0x2A, 0x23, 0x00, 0x02, 0x24, 0x00, 0x24, 0x2A],
                received: true
            )
            capture.att([0x04, 0x13, 0x00, 0x13, 0x00], received: false)  // Find Information 0x0013
            capture.att([0x05, 0x01, 0x13, 0x00, 0x02, 0x29], received: true)  // 0x0013 is a CCCD (2902)
        }
        capture.att([0x12, 0x13, 0x00, 0x02, 0x00], received: false)  // Write Request CCCD: indications on
        capture.att([0x13], received: true)
        capture.att([0x0A, 0x22, 0x00], received: false)  // Read Request 0x0022 (2A29)
        capture.att([0x0B] + Self.acme, received: true)
        let readTime = capture.time
        // Handle Value Indication 0x0012, in ACL fragments of 10 bytes.
        capture.att([0x1D, 0x12, 0x00] + Self.weighIn, received: true, fragment: 10, after: 2)
        let indicationTime = capture.time
        capture.att([0x1E], received: false)  // Handle Value Confirmation
        capture.disconnectionComplete(reason: 0x13)  // remote user terminated connection
        bytes = capture.bytes
        self.readTime = readTime
        self.indicationTime = indicationTime
    }

}
