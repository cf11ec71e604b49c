public import Foundation
public import GATTDecoding

/// What normalisation needs besides the decoded payload: when it arrived, which zone device clocks are in,
/// where it came from, and the metadata its samples carry.
public struct SampleContext: Sendable {
    /// When the bridge received the payload.
    public var receivedAt: Date {
        get { provenance.receivedAt }
        set { mutateProvenance { $0.receivedAt = newValue } }
    }
    /// The bridge's time zone, in which zone-less device timestamps are read.
    public var timeZone: TimeZone
    public var source: SampleSource {
        get { provenance.source }
        set { mutateProvenance { $0.source = newValue } }
    }
    /// The payload bytes, kept beside every sample so history can be re-decoded.
    public var payload: [UInt8] {
        get { provenance.payload }
        set { mutateProvenance { $0.payload = PayloadBytes(newValue) } }
    }
    /// What every sample made from now on carries in its metadata (user ID, sensor contact, status bits):
    /// a decoder sets it once per payload, and the payload's samples share it.
    public var metadata: [String: String] {
        get { provenance.metadata }
        set { mutateProvenance { $0.metadata = newValue } }
    }
    /// Shared by every sample made from this context.
    private var provenance: SampleProvenance

    public init(receivedAt: Date, timeZone: TimeZone, source: SampleSource, payload: [UInt8]) {
        self.timeZone = timeZone
        self.provenance = SampleProvenance.make(
            source: source,
            payload: PayloadBytes(payload),
            receivedAt: receivedAt,
            metadata: [:]
        )
    }

    private mutating func mutateProvenance(_ change: (inout SampleProvenance.Fields) -> Void) {
        SampleProvenance.change(&provenance, change)
    }

    /// The instant a sample with this device time is stamped with: the device time read in ``timeZone``,
    /// or the receive time when there is none (or the device did not know the date).
    public func start(for deviceTime: DateTime?) -> Date {
        deviceTime?.date(in: timeZone) ?? receivedAt
    }

    /// Makes one sample (a draft: the pipeline settles it): converts `value` from the transmitted `unit` to the type's canonical unit and stamps
    /// it with the device time (read in ``timeZone``) or, without one, the receive time. It carries
    /// ``metadata`` as it is now.
    /// Pass `start` (from ``start(for:)``) when making several samples from one payload, to resolve the device
    /// time once.
    /// - Returns: nil if the unit cannot be converted to the type's canonical unit.
    public func sample(
        _ type: QuantityType,
        value: Double,
        unit: HealthUnit,
        deviceTime: DateTime? = nil,
        index: Int = 0,
        start resolvedStart: Date? = nil
    ) -> SampleDraft? {
        guard let canonical = unit.convert(value, to: type.canonicalUnit) else { return nil }
        let start = resolvedStart ?? self.start(for: deviceTime)
        return SampleDraft(
            type: type,
            value: canonical,
            unit: type.canonicalUnit,
            start: start,
            transmittedValue: value,
            transmittedUnit: unit,
            provenance: provenance,
            deviceTime: deviceTime.flatMap { $0.isUnknown ? nil : $0 },
            index: index
        )
    }

    /// Makes one sample of an IEEE 11073 reading, as ``sample(_:value:unit:deviceTime:index:start:)`` does: its
    /// finite value, or for −INF/+INF (below/above the device's range) a sample with comparator `<`/`>` and value
    /// −∞/+∞ (the pipeline puts the profile's `measurementRange` limit there).
    /// - Returns: nil for NaN, NRes and reserved, or if the unit cannot be converted.
    public func sample(
        _ type: QuantityType,
        reading: some IEEE11073Float,
        unit: HealthUnit,
        deviceTime: DateTime? = nil,
        start: Date? = nil
    ) -> SampleDraft? {
        let comparator = reading.special.flatMap(ValueComparator.init)
        guard let value = reading.doubleValue ?? comparator.map({ _ in 0 }),
            var sample = sample(type, value: value, unit: unit, deviceTime: deviceTime, start: start)
        else { return nil }
        if let comparator {
            sample.comparator = comparator
            sample.value = comparator.unboundedValue
            sample.transmittedValue = comparator.unboundedValue
        }
        return sample
    }
}

/// A decoded payload that yields quantity samples.
///
/// Special values, "measurement unsuccessful", intermediate readings and status-flagged readings produce
/// no sample for that quantity; the fields still show them.
public protocol SampleProducing: GATTPayload {
    /// Appends this payload's samples to `samples`, leaving what is already there untouched.
    ///
    /// The form for hot paths: a caller that reuses one buffer (`removeAll(keepingCapacity: true)`) or
    /// appends straight into its batch makes no array per payload. The context is consumed: a caller that
    /// hands over its only copy lets the decoder attach metadata without copying the shared provenance.
    func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft])

    /// The sequence number of a context value that follows this payload and annotates its samples (Glucose
    /// Measurement flags bit 4, ``SampleAnnotating``): its samples wait for it. Nil, the default, when none
    /// follows.
    var followingContextSequence: UInt16? { get }

    /// Values of this payload that give no sample although they are not special values: an MDC code or unit a
    /// GHS observation carries that CareBridge does not map. The pipeline reports each as a warning, so such a
    /// value is never dropped in silence. Empty, the default, for the fixed-layout characteristics.
    var unmappedValues: [String] { get }
}

extension SampleProducing {
    public var followingContextSequence: UInt16? { nil }
    public var unmappedValues: [String] { [] }

    /// This payload's samples, in a new array.
    public func samples(in context: consuming SampleContext) -> [SampleDraft] {
        var samples: [SampleDraft] = []
        appendSamples(in: context, to: &samples)
        return samples
    }
}
