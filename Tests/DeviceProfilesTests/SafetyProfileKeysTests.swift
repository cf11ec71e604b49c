import BridgeCore
import DeviceProfiles
import Testing

/// `measurementRange`, `plausibility`, characteristic `quirks` and `deviceTimeIsUTC` in profile files.
@Suite struct SafetyProfileKeysTests {
    static func profile(_ characteristic: String, extra: String = "") -> String {
        """
        {"id": "p", "name": "P", "match": {"serviceUUIDs": ["1808"]}, "link": "gatt",
         "characteristics": [\(characteristic)]\(extra)}
        """
    }

    @Test func rangesAreReadInTheirUnitAndStoredCanonical() throws {
        let profile = try DeviceProfile(
            json: Self.profile(
                #"{"uuid": "2A18", "use": "notify", "decoder": "glucose-measurement"}"#,
                extra: #", "measurementRange": {"bloodGlucose": {"low": 1.1, "high": 33.3, "unit": "mmol/L"}},"#
                    + #" "plausibility": {"heartRate": {"low": 30, "high": 250}}, "quirks": {"deviceTimeIsUTC": true}"#
            )
        )
        let range = try #require(profile.measurementRanges[.bloodGlucose])
        #expect(abs(range.lowerBound - 1.1 * 18.0156) < 1e-9)
        #expect(abs(range.upperBound - 33.3 * 18.0156) < 1e-9)
        #expect(profile.plausibility[.heartRate] == 30...250)
        #expect(profile.quirks.deviceTimeIsUTC)
    }

    @Test func badRangesAndUnsupportedQuirksNameTheField() {
        func failure(_ json: String) -> String? {
            do {
                _ = try DeviceProfile(json: json)
                return nil
            } catch {
                return error.description
            }
        }
        let glucose = #"{"uuid": "2A18", "use": "notify", "decoder": "glucose-measurement"}"#
        #expect(
            failure(Self.profile(glucose, extra: #", "measurementRange": {"bloodSugar": {"low": 1, "high": 2}}"#))?
                .hasPrefix("measurementRange.bloodSugar: not a quantity type") == true
        )
        #expect(
            failure(Self.profile(glucose, extra: #", "plausibility": {"heartRate": {"low": 9, "high": 2}}"#))?
                .hasPrefix("plausibility.heartRate: expected numbers low ≤ high") == true
        )
        #expect(
            failure(
                Self.profile(
                    glucose,
                    extra: #", "measurementRange": {"bloodGlucose": {"low": 1, "high": 2, "unit": "kg"}}"#
                )
            )?
            .hasPrefix("measurementRange.bloodGlucose.unit:") == true
        )
        let quirky =
            #"{"uuid": "2A37", "use": "notify", "decoder": "heart-rate-measurement", "quirks": {"bigEndian": ["heartRate"]}}"#
        #expect(
            failure(Self.profile(quirky))
                == "characteristics[0].quirks: byte order of 'heartRate' is not a quirk of heart-rate-measurement "
                + "(supported: none)"
        )
    }
}
