import BridgeCore
import CareStore
import Foundation
import SampleExport

/// Joins the systolic and diastolic samples of one blood-pressure measurement (``PairKey``: same source, time and
/// payload) into one reading, `164/98 mmHg`, as people write a blood pressure, while the period's samples stream
/// past in (start, id) order: only the samples that share the current start are held.
///
/// Only plain halves pair: a quarantined, deleted or out-of-range (LO/HI) systolic or diastolic stays a reading
/// of its own, so that its flag is shown on it.
struct PressurePairer {
    /// One reading: a sample on its own, or the two halves of a blood pressure.
    enum Reading {
        case single(StoredSample)
        case pair(systolic: StoredSample, diastolic: StoredSample)

        /// When it was measured.
        var start: Date {
            switch self {
            case .single(let stored): stored.sample.start
            case .pair(let systolic, _): systolic.sample.start
            }
        }
    }

    private var held: [StoredSample] = []

    /// Adds the next sample of the stream; returns the readings completed by it (those of an earlier start).
    mutating func add(_ stored: StoredSample) -> [Reading] {
        var done: [Reading] = []
        if let first = held.first, first.sample.start != stored.sample.start { done = finish() }
        held.append(stored)
        return done
    }

    /// The readings still held, at the end of the stream.
    mutating func finish() -> [Reading] {
        let samples = held
        held = []
        var used = Set<Int>()
        var readings: [Reading] = []
        for (index, stored) in samples.enumerated() where !used.contains(index) {
            used.insert(index)
            guard Self.pairable(stored) else {
                readings.append(.single(stored))
                continue
            }
            let key = PairKey(stored.sample)
            let partner = samples.indices.first { other in
                !used.contains(other) && Self.pairable(samples[other])
                    && samples[other].sample.type != stored.sample.type && PairKey(samples[other].sample) == key
            }
            guard let partner else {
                readings.append(.single(stored))
                continue
            }
            used.insert(partner)
            readings.append(
                stored.sample.type == .bloodPressureSystolic
                    ? .pair(systolic: stored, diastolic: samples[partner])
                    : .pair(systolic: samples[partner], diastolic: stored)
            )
        }
        return readings
    }

    /// A plain systolic or diastolic value: live, not quarantined, not a LO/HI bound.
    static func pairable(_ stored: StoredSample) -> Bool {
        let sample = stored.sample
        return (sample.type == .bloodPressureSystolic || sample.type == .bloodPressureDiastolic)
            && sample.comparator == nil && !sample.isQuarantined && stored.deletedDate == nil
    }
}
