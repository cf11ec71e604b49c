public import Foundation

/// A reading as a person writes it after the type: `72.4 kg`, `72.5kg`, `98.6°F`, `98.6 ºF`, `37.2℃`,
/// `11 st 4 lb`, `160 kgs`, or a blood pressure `120/80 mmHg` (systolic and diastolic, one reading).
///
/// Pure: turns the words into one or two ``Reading``s (value and unit as typed, checked for a number, a unit of
/// the right dimension and a sign); ``ManualReading/sample(type:value:unit:at:note:receivedAt:)`` then converts
/// and checks plausibility.
public enum ManualReadingText {
    /// One value as typed: what it measures, the number and the unit it was written in.
    public struct Reading: Sendable, Equatable {
        public var type: QuantityType
        public var value: Double
        public var unit: String

        public init(type: QuantityType, value: Double, unit: String) {
            self.type = type
            self.value = value
            self.unit = unit
        }
    }

    /// The type names that mean both blood-pressure values (`bloodPressure`, `blood-pressure`, `bp`).
    static let bloodPressureNames: Set<String> = ["bloodpressure", "bp"]

    /// Reads the type and the words after it.
    /// - Parameters:
    ///   - typeText: the type as typed (`bodyMass`, `body-mass`, `bloodPressure`, `bp`).
    ///   - words: the value and unit words, e.g. `["72.5kg"]`, `["11", "st", "4", "lb"]`, `["120/80", "mmHg"]`.
    /// - Returns: one reading, or two (systolic then diastolic) for a blood pressure.
    /// - Throws: ``ManualReading/Failure`` saying what is wrong and what would have worked.
    public static func parse(type typeText: String, words: [String]) throws(ManualReading.Failure) -> [Reading] {
        let key = typeText.lowercased().filter(\.isLetter)
        let type: QuantityType =
            bloodPressureNames.contains(key) ? .bloodPressureSystolic : try ManualReading.parseType(typeText)
        let typed = words.joined(separator: " ")
        guard let first = words.first, !first.isEmpty else { throw .missingValue(type) }
        let tokens = try tokens(words)
        let isPressure = [.bloodPressureSystolic, .bloodPressureDiastolic].contains(type)
        var shape = ""
        var numbers: [Double] = []
        var units: [String] = []
        for token in tokens {
            switch token {
            case .number(let value):
                shape += "N"
                numbers.append(value)
            case .slash: shape += "/"
            case .unit(let unit):
                shape += "U"
                units.append(unit)
            }
        }
        switch shape {
        case "N/NU":
            guard isPressure else { throw .pairForOtherType(type, typed) }
            guard numbers[0] >= 0, numbers[1] >= 0 else { throw .negative(type, typed) }
            guard numbers[0] > 0, numbers[1] > 0 else { throw .zeroPressure(typed) }
            guard numbers[0] > numbers[1] else { throw .bloodPressureOrder(typed) }
            let unit = normalized(units[0])
            return [
                Reading(type: .bloodPressureSystolic, value: numbers[0], unit: unit),
                Reading(type: .bloodPressureDiastolic, value: numbers[1], unit: unit),
            ]
        case "N/N":
            throw .missingUnit(.bloodPressureSystolic, typed)
        case _ where bloodPressureNames.contains(key):
            throw .bloodPressureNeedsTwo(typed)
        case "NU" where isStone(units[0]):
            return [try stone(type: type, stones: numbers[0], pounds: 0, typed: typed)]
        case "NUNU" where isStone(units[0]) && isPound(units[1]):
            return [try stone(type: type, stones: numbers[0], pounds: numbers[1], typed: typed)]
        case "NU":
            guard numbers[0] >= 0 || ManualReading.plausibleRange(for: type).lowerBound < 0 else {
                throw .negative(type, typed)
            }
            return [Reading(type: type, value: numbers[0], unit: normalized(units[0]))]
        case "N":
            throw .missingUnit(type, typed)
        default:
            throw .unreadable(type, typed)
        }
    }

    /// Reads the words and builds the samples: one, or a systolic and a diastolic at the same time.
    /// - Throws: ``ManualReading/Failure``, before anything is built, for any of them.
    public static func samples(
        type typeText: String,
        words: [String],
        at: Date,
        note: String? = nil,
        receivedAt: Date
    ) throws(ManualReading.Failure) -> [QuantitySample] {
        try parse(type: typeText, words: words).map { reading throws(ManualReading.Failure) in
            do throws(ManualReading.Failure) {
                return try ManualReading.sample(
                    type: reading.type,
                    value: reading.value,
                    unit: reading.unit,
                    at: at,
                    note: note,
                    receivedAt: receivedAt
                )
            } catch {
                if case .unknownUnit(let unit) = error { throw .unknownUnitFor(unit, reading.type) }
                throw error
            }
        }
    }

    /// `11 st 4 lb` in pounds (14 lb to the stone), for body-mass types only.
    static func stone(
        type: QuantityType,
        stones: Double,
        pounds: Double,
        typed: String
    ) throws(ManualReading.Failure) -> Reading {
        guard type.canonicalUnit == .kilogram else { throw .incompatibleUnit(.pound, type) }
        guard stones >= 0, pounds >= 0 else { throw .negative(type, typed) }
        guard pounds < 14 else { throw .unreadable(type, typed) }
        return Reading(type: type, value: stones * 14 + pounds, unit: "lb")
    }

    static func isStone(_ unit: String) -> Bool { ["st", "stone", "stones"].contains(unit.lowercased()) }
    static func isPound(_ unit: String) -> Bool { ["lb", "lbs", "pound", "pounds"].contains(unit.lowercased()) }

    /// The spellings ``HealthUnit/init(parsing:)`` does not know but people type: `kgs`, `℃`, `ºF` (an
    /// ordinal sign for the degree sign), `˚C`.
    static func normalized(_ unit: String) -> String {
        var text = unit
        for (from, to) in [("℃", "°C"), ("℉", "°F"), ("º", "°"), ("˚", "°"), ("deg ", "deg")] {
            text = text.replacingOccurrences(of: from, with: to)
        }
        switch text.lowercased() {
        case "kgs", "kilo", "kilos": return "kg"
        case "bpm.", "beats/min": return "bpm"
        default: return text
        }
    }

    enum Token: Equatable {
        case number(Double)
        case slash
        case unit(String)
    }

    /// Splits the words into numbers, units and the `/` of a blood pressure: `72.5kg` is a number and a unit,
    /// `120/80` two numbers around a slash, `mg/dL` one unit. A word after the first that is a whole unit
    /// (`1/min`) stays one.
    static func tokens(_ words: [String]) throws(ManualReading.Failure) -> [Token] {
        var result: [Token] = []
        for (index, word) in words.enumerated() {
            if index > 0, HealthUnit(parsing: normalized(word)) != nil, !word.isEmpty {
                result.append(.unit(word))
                continue
            }
            guard !word.contains(where: \.isWhitespace), !word.isEmpty else { throw .notANumber(word) }
            let characters = Array(word)
            var position = 0
            while position < characters.count {
                let start = position
                let character = characters[position]
                let next = position + 1 < characters.count ? characters[position + 1] : nil
                let startsNumber =
                    character.isASCII && character.isNumber
                    || ((character == "-" || character == "+" || character == "." || character == ",")
                        && next.map { $0.isASCII && $0.isNumber } == true)
                if startsNumber {
                    position += 1
                    while position < characters.count {
                        let c = characters[position]
                        let following = position + 1 < characters.count ? characters[position + 1] : nil
                        if c.isASCII && c.isNumber || c == "." || c == "," {
                            position += 1
                        } else if c == "e" || c == "E",
                            let following,
                            following.isASCII && following.isNumber || following == "-" || following == "+"
                        {
                            position += 2
                        } else {
                            break
                        }
                    }
                    let text = String(characters[start..<position])
                    guard let value = DecimalNumber.parse(text), value.isFinite else {
                        throw .notANumber(word)
                    }
                    result.append(.number(value))
                } else if character == "/", case .number? = result.last,
                    next.map({ $0.isASCII && $0.isNumber }) != false
                {
                    position += 1
                    result.append(.slash)
                } else {
                    // `11st4lb`: a stone followed by pounds in one word; any other unit runs to the word's end.
                    var letters = position
                    while letters < characters.count, characters[letters].isLetter { letters += 1 }
                    let run = String(characters[start..<letters])
                    if isStone(run), letters < characters.count, characters[letters].isASCII,
                        characters[letters].isNumber
                    {
                        position = letters
                    } else {
                        position = characters.count
                    }
                    let text = String(characters[start..<position])
                    // A number glued to letters that are not a unit (`7O`, `0x46`) is a mistyped number.
                    if index == 0, start > 0, HealthUnit(parsing: normalized(text)) == nil, !isStone(text),
                        !isPound(text), words.count > 1
                    {
                        throw .notANumber(word)
                    }
                    if start == 0, index == 0 { throw .notANumber(word) }
                    result.append(.unit(text))
                }
            }
        }
        return result
    }
}
