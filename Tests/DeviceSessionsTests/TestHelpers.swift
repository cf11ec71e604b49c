import BridgeFoundation

/// Bytes from spaced hex as the spec document writes them (`02 05 00 …`); a typo in a fixture stops the run.
func hex(_ text: String) -> [UInt8] { try! Hex.bytes(text) }
