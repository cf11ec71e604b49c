import BridgeFoundation
import Foundation
import GATTDecoding

extension HealthObservation {
    /// What one observation gives: samples, and the values that give none (an MDC code or unit CareBridge does
    /// not map), each as a sentence for the pipeline's report.
    struct Sampling {
        var samples: [SampleDraft] = []
        var unmapped: [String] = []
    }

    /// The samples of this observation (a bundle's members, a compound's components), each carrying its MDC
    /// code in its metadata.
    ///
    /// The time stamp places the samples: UTC as it is, local time in the context's zone; without one (or with
    /// a tick counter, which is not a time of day) the receive time, and the metadata says so. An observation
    /// whose status marks it calibrating, test data, an early estimate or a setting gives no sample; invalid,
    /// questionable or unavailable ones are made with the status in their metadata (the safety stage
    /// quarantines them).
    /// - Parameters:
    ///   - inherited: the enclosing bundle's time stamp, for members without their own.
    ///   - record: the stored record number, kept in the metadata.
    func sampling(
        in context: SampleContext,
        inherited: ElapsedTime? = nil,
        record: UInt32? = nil,
        into result: inout Sampling
    ) {
        if let measurementStatus, !measurementStatus.isDisjoint(with: HealthObservationStatus.notFinal) { return }
        let stamp = timeStamp ?? inherited
        if case .bundle(let members) = value {
            for member in members { member.sampling(in: context, inherited: stamp, record: record, into: &result) }
            return
        }
        var context = context
        var metadata = ["measurement": "ghs", "ghs.class": classType.name]
        if let record { metadata["ghs.recordNumber"] = String(record) }
        if let observationID { metadata["ghs.observationID"] = String(observationID) }
        if let patient {
            // The Patient field is the User Data Service user index: the sample belongs to that user of the
            // sensor (people routing, as for a scale's user slot); 0xFF, UDS's unknown user, routes nowhere and is
            // kept in the inbox, as is a user index no one owns.
            metadata["ghs.patient"] = String(patient)
            metadata.merge(UserMetadata.metadata(for: patient)) { _, user in user }
        }
        if let measurementStatus, !measurementStatus.isEmpty {
            metadata["measurementStatus"] = measurementStatus.names.joined(separator: ", ")
        }
        let (deviceTime, start) = Self.placement(of: stamp, in: context, metadata: &metadata)
        let code = type ?? 0
        switch value {
        case .numeric(let unit, let number):
            emit(code, unit: unit, value: number, metadata, deviceTime, start, &context, into: &result)
        case .compound(let components):
            metadata["mdc.compound"] = String(code)
            for component in components {
                guard case .numeric(let unit, let number) = component.value else {
                    result.unmapped.append("component \(component.type) of \(code) is not numeric: no sample")
                    continue
                }
                emit(component.type, unit: unit, value: number, metadata, deviceTime, start, &context, into: &result)
            }
        default:
            result.unmapped.append(
                "\(classType.name) observation of MDC code \(code): CareBridge stores no samples of it"
            )
        }
    }

    private func emit(
        _ code: UInt32,
        unit: UInt16,
        value: MedFloat,
        _ metadata: [String: String],
        _ deviceTime: DateTime?,
        _ start: Date,
        _ context: inout SampleContext,
        into result: inout Sampling
    ) {
        guard let mapped = MDCNomenclature.quantities[code] else {
            result.unmapped.append("MDC code \(code) (unit \(unit), value \(value)) has no CareBridge quantity type")
            return
        }
        guard let healthUnit = MDCNomenclature.units[unit] else {
            result.unmapped.append("\(mapped.name) (\(code)) in MDC unit \(unit), which CareBridge does not know")
            return
        }
        guard let number = value.doubleValue else { return }  // special values: reported from the fields
        var metadata = metadata
        metadata["mdc.code"] = String(code)
        metadata["mdc.name"] = mapped.name
        metadata["mdc.unit"] = String(unit)
        metadata["resolution.\(mapped.type.rawValue)"] = SampleResolution.text(exponent: value.exponent)
        context.metadata = metadata
        guard
            let sample = context.sample(
                mapped.type,
                value: number,
                unit: healthUnit,
                deviceTime: deviceTime,
                start: start
            )
        else {
            result.unmapped.append("\(mapped.name) (\(code)): \(healthUnit) is not a unit of \(mapped.type.title)")
            return
        }
        result.samples.append(sample)
    }

    /// The device time samples carry and the instant they are stamped with.
    static func placement(
        of stamp: ElapsedTime?,
        in context: SampleContext,
        metadata: inout [String: String]
    ) -> (DateTime?, Date) {
        guard let stamp, let wallClock = stamp.wallClock else {
            metadata["ghs.time"] = stamp == nil ? "none: receive time" : "tick counter: receive time"
            return (nil, context.receivedAt)
        }
        guard stamp.isUTC else { return (wallClock, context.start(for: wallClock)) }
        metadata["ghs.time"] = "UTC"
        let instant = wallClock.date(in: TimeZone(identifier: "UTC")!) ?? context.receivedAt
        return (DateTime(wallClockOf: instant, in: context.timeZone), instant)
    }
}

extension HealthObservation {
    /// A context for working out which values give no sample (no sample made from it is kept).
    static var probe: SampleContext {
        SampleContext(
            receivedAt: Date(timeIntervalSince1970: 0),
            timeZone: TimeZone(identifier: "UTC")!,
            source: SampleSource(kind: .device, characteristic: .liveHealthObservations, decoder: "probe", device: nil),
            payload: []
        )
    }
}
