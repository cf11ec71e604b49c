import Foundation
import Testing

@testable import SampleExport

@Suite struct DecimalTextTests {
    @Test(
        "scales the shortest decimal text exactly",
        arguments: [
            (1.13, 2, "113"), (1.755, 2, "175.5"), (0.0055, 3, "5.5"), (1e-05, 3, "0.01"), (-0.5, 1, "-5"),
            (0, 2, "0"), (123.456, -2, "1.23456"), (5e-07, 3, "0.0005"), (1e21, 2, "100000000000000000000000"),
        ]
    )
    func scales(value: Double, power: Int, expected: String) {
        #expect(DecimalText.scaled(value, byPowerOfTen: power) == expected)
    }

    @Test func refusesValuesThatAreNotFinite() {
        #expect(DecimalText.scaled(.nan, byPowerOfTen: 2) == nil)
        #expect(DecimalText.scaled(.infinity, byPowerOfTen: 2) == nil)
    }
}
