import BridgeCore
import Testing

@Suite struct UnitConversionTests {
    @Test func poundsToKilogramsUsesTheExactFactor() {
        #expect(HealthUnit.pound.convert(1, to: .kilogram) == 0.453_592_37)
        #expect(HealthUnit.pound.convert(160, to: .kilogram) == 160 * 0.453_592_37)
    }

    @Test func fahrenheitToCelsius() {
        #expect(HealthUnit.fahrenheit.convert(98.6, to: .celsius)! == (98.6 - 32) * 5 / 9)
        #expect(HealthUnit.fahrenheit.convert(212, to: .celsius) == 100)
        #expect(HealthUnit.celsius.convert(37, to: .fahrenheit)! == 98.6)
    }

    @Test func kilopascalToMillimetresOfMercury() {
        #expect(HealthUnit.kilopascal.convert(16, to: .millimetreOfMercury) == 16 * 7.500_615_758)
    }

    @Test func glucoseConcentrations() {
        #expect(HealthUnit.kilogramPerLitre.convert(0.00095, to: .milligramPerDecilitre)! == 0.00095 * 100_000)
        #expect(HealthUnit.millimolePerLitre.convert(5, to: .milligramPerDecilitre) == 5 * 18.0156)
        #expect(HealthUnit.molePerLitre.convert(0.005, to: .millimolePerLitre)! == 0.005 * 1000)
    }

    @Test func tenthsOfAnInchToMetres() {
        #expect(HealthUnit.inch.convert(68.7, to: .metre) == 68.7 * 0.0254)
    }

    @Test func refusesAcrossDimensions() {
        #expect(HealthUnit.kilogram.convert(1, to: .celsius) == nil)
        #expect(HealthUnit(rawValue: "furlong").convert(1, to: .metre) == nil)
    }

    @Test(arguments: [
        ("kg", HealthUnit.kilogram), ("lbs", .pound), ("lb", .pound), ("°C", .celsius), ("C", .celsius),
        ("degC", .celsius), ("°F", .fahrenheit), ("F", .fahrenheit), ("degF", .fahrenheit), ("bpm", .perMinute),
        ("/min", .perMinute), ("mmHg", .millimetreOfMercury), ("kPa", .kilopascal), ("%", .percent),
        ("mg/dL", .milligramPerDecilitre), ("mmol/L", .millimolePerLitre), ("ms", .millisecond),
    ])
    func parsesTheSpellingsPeopleType(text: String, unit: HealthUnit) {
        #expect(HealthUnit(parsing: text) == unit)
    }

    @Test func aUnitReadBackFromItsCodeIsTheSameUnit() {
        for unit in [HealthUnit.kilogram, .pound, .rrTick, .millimetreOfMercury, .molePerLitre, .jin] {
            let copy = HealthUnit(rawValue: unit.rawValue)
            #expect(copy == unit)
            #expect(copy.hashValue == unit.hashValue)
            #expect(copy.convert(1, to: unit) == 1)
        }
        #expect(HealthUnit.kilogram.rawValue == "kg")
        #expect(HealthUnit.pound.rawValue == "[lb_av]")
        #expect(HealthUnit.kilogram != .gram)
    }

    @Test func anUnknownUnitKeepsItsCodeAndConvertsOnlyToItself() {
        let furlong = HealthUnit(rawValue: "[fur_us]")
        let again = HealthUnit(rawValue: "[fur_us]")
        let chain = HealthUnit(rawValue: "[ch_us]")
        #expect(furlong.rawValue == "[fur_us]")
        #expect(furlong.description == "[fur_us]")
        #expect(furlong == again)
        #expect(Set([furlong, again, chain]).count == 2)
        #expect(furlong != chain)
        #expect(furlong != .metre)
        #expect(furlong.convert(3.5, to: again) == 3.5)
        #expect(furlong.convert(1, to: chain) == nil)
        #expect(furlong.dimension == nil)
    }

    @Test func conversionsWithinADimensionRoundTrip() throws {
        let pairs: [(HealthUnit, HealthUnit)] = [
            (.gram, .kilogram), (.pound, .kilogram), (.jin, .kilogram), (.centimetre, .metre), (.inch, .metre),
            (.kilojoule, .kilocalorie), (.second, .millisecond), (.rrTick, .millisecond),
            (.kilopascal, .millimetreOfMercury),
            (.kilogramPerLitre, .milligramPerDecilitre), (.millimolePerLitre, .milligramPerDecilitre),
        ]
        for (from, to) in pairs {
            let there = try #require(from.convert(12.5, to: to))
            let back = try #require(to.convert(there, to: from))
            #expect(abs(back - 12.5) < 1e-9, "\(from) → \(to) → \(from)")
        }
        #expect(HealthUnit.rrTick.convert(1024, to: .millisecond) == 1000)
        #expect(HealthUnit.gram.convert(1500, to: .kilogram) == 1.5)
    }
}
