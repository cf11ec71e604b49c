import ArgumentParser
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import SampleIngest

struct Decode: ParsableCommand {
    private typealias Reading = DeviceProfile.Characteristic.Reading

    static let configuration = CommandConfiguration(
        abstract: "Decode one characteristic value or advertisement payload and show its fields and samples.",
        discussion: """
            Examples:
              carebridge decode 2A9D 02A438E80703 0F071E00
              carebridge decode 0x2a37 16484003
              carebridge decode --service-data 181B 0022E80703 0F071E00F401A438

            CHARACTERISTIC accepts 16-bit (2A9D, 0x2a9d) or full 128-bit UUIDs. HEX may contain spaces or \
            colons. Timestamps without a zone (device clocks) are read in --time-zone. "samples" shows what the \
            bridge would store: a LO/HI result (IEEE 11073 −INF/+INF, glucose "result lower/higher than the \
            device can process") as a sample with "comparator" < or >; "noValue" lists fields whose special \
            value means no value (NaN invalid result, NRes not at this resolution, reserved) and why. A device \
            time that is evidently wrong (before 2000, in the future) is corrected as a session corrects it: \
            the sample is at the receive time with "clockOffset", its "deviceTime" as the device sent it. A \
            payload is at most 512 bytes (the longest attribute value). Exit status: 0 decoded, 64 unknown \
            characteristic, 65 malformed or too long payload.
            """
    )

    @Flag(name: .long, help: "Treat the UUID as a Service Data key of an advertisement (Mi scales).")
    var serviceData = false

    @Flag(name: .long, inversion: .prefixedNo, help: "Indent the JSON (default: on when writing to a terminal).")
    var pretty: Bool?

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Characteristic (or service-data) UUID, e.g. 2A9D.")
    var uuid: String

    @Argument(parsing: .remaining, help: "The payload in hex.")
    var hex: [String]

    func run() throws {
        let zone = try global.resolvedTimeZone()
        guard let parsed = BluetoothUUID(uuid) else {
            Output.error("'\(uuid)' is not a Bluetooth UUID (use 2A9D, 0x2a9d or a 128-bit UUID)")
            throw ExitCode(64)
        }
        let decoder =
            serviceData
            ? DecoderCatalog.decoder(forServiceData: parsed) : DecoderCatalog.decoder(forCharacteristic: parsed)
        guard let decoder else {
            let supported = DecoderCatalog.all.filter { $0.source.isServiceData == serviceData }
                .map { "  \($0.source.uuid)  \($0.name)" }
                .joined(separator: "\n")
            Output.error(
                "unsupported \(serviceData ? "service-data UUID" : "characteristic") \(parsed); supported:\n\(supported)"
            )
            throw ExitCode(64)
        }
        let text = hex.joined()
        // Two hex digits a byte, spaces and colons between them: checked before the text is read, so a long
        // argument is refused at once (a 60 KB payload took gigabytes to decode).
        let digits = text.utf8.count(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ":") })
        guard digits <= 2 * ValueLimits.maximumLength else {
            Output.error(
                "\(decoder.displayName): a payload of \(digits / 2) bytes is longer than a characteristic value or "
                    + "advertisement can be (at most \(ValueLimits.maximumLength) bytes)"
            )
            throw ExitCode(65)
        }
        let bytes: [UInt8]
        do {
            bytes = try Hex.bytes(text)
        } catch {
            Output.error("\(decoder.displayName): \(error)")
            throw ExitCode(65)
        }
        // The role the pipeline resolves at profile load: a payload that gives samples decodes straight into
        // its measurement type, any other only for its fields.
        let measurement: (any SampleProducing)?
        let payload: any GATTPayload
        do throws(GATTDecodingError) {
            if case .measurement(let type, _)? = try? Reading(PayloadDecoder(decoder), role: .measurement) {
                let measured = try type.decode(bytes)
                measurement = measured
                payload = measured
            } else {
                measurement = nil
                payload = try decoder.decode(bytes)
            }
        } catch {
            Output.error(error.description)
            throw ExitCode(65)
        }
        var object: JSONObject = [
            (serviceData ? "serviceData" : "characteristic"): .string(parsed.description),
            "name": .string(decoder.name),
            "decoder": .string(decoder.identifier),
            "payload": .string(Hex.string(bytes)),
            "fields": .object(payload.fields),
        ]
        var samples: [JSONValue] = []
        if let measurement {
            let context = SampleContext(
                receivedAt: Date(),
                timeZone: zone,
                source: .device(decoder),
                payload: bytes
            )
            // Placed in time as a session places them: a device time that is evidently wrong (a Date Time of
            // 1783) stays visible as deviceTime, the sample moves to the receive time with its clockOffset.
            samples = PipelineConfiguration(timeZone: zone).placedInTime(measurement.samples(in: context))
                .map { QuantitySample($0).json(in: zone) }
        }
        object["samples"] = .array(samples)
        let noValue = NoValueField.find(in: payload.fields)
        if !noValue.isEmpty { object["noValue"] = .array(noValue.map(\.json)) }
        print(JSONValue.object(object).serialized(pretty: pretty ?? Output.isTerminal))
    }
}
