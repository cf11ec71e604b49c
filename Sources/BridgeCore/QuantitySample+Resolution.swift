import Foundation

extension QuantitySample {
    /// The step of ``transmittedValue`` in ``transmittedUnit``, when the decoder recorded it
    /// (``SampleResolution``).
    public var transmittedResolution: Double? {
        metadata[SampleResolution.key(type)].flatMap(Double.init)
    }

    /// Decimals to present ``transmittedValue`` with; nil when the resolution is not known.
    public var transmittedDecimals: Int? {
        transmittedResolution.flatMap(SampleResolution.decimals(step:))
    }

    /// Decimals to present ``value`` (in ``unit``) with: the transmitted step converted to the unit (0.1 kPa is
    /// 0.75 mmHg: 1 decimal; 0.01 lb is 0.0045 kg: 3); nil when the resolution is not known.
    public var valueDecimals: Int? {
        guard let step = transmittedResolution else { return nil }
        if transmittedUnit == unit { return SampleResolution.decimals(step: step) }
        guard let zero = transmittedUnit.convert(0, to: unit), let one = transmittedUnit.convert(step, to: unit) else {
            return nil
        }
        return SampleResolution.decimals(step: abs(one - zero))
    }

    /// ``value`` as text at the transmitted precision (rounded), or nil when it is not known or not finite.
    public var valueAtResolution: String? {
        valueDecimals.flatMap { SampleResolution.format(value, decimals: $0) }
    }

    /// ``transmittedValue`` as text at its precision, or nil when it is not known or not finite.
    public var transmittedValueAtResolution: String? {
        transmittedDecimals.flatMap { SampleResolution.format(transmittedValue, decimals: $0) }
    }
}
