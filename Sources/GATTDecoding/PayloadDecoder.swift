/// A decoder a device profile names, resolved when the profile loads: the payload type that reads a value.
///
/// Profiles name decoders by identifier (`heart-rate-measurement`); the loader turns each name into a
/// `PayloadDecoder` through ``DecoderCatalog``, so an unknown name is a profile error and the pipeline never
/// looks a decoder up by string. Equal when the payload types are the same.
public struct PayloadDecoder: Sendable, Hashable, CustomStringConvertible {
    /// The payload type that decodes the value.
    public let type: any GATTPayload.Type

    public init(_ type: any GATTPayload.Type) {
        self.type = type
    }

    /// The catalogue's decoder with this identifier, or nil when this build has none.
    public init?(identifier: String) {
        guard let type = DecoderCatalog.decoder(identifier: identifier) else { return nil }
        self.type = type
    }

    /// The profile name of the decoder, e.g. `heart-rate-measurement`.
    public var identifier: String { type.identifier }
    /// `Heart Rate Measurement (2A37)`.
    public var displayName: String { type.displayName }
    public var description: String { type.identifier }

    /// Decodes one value.
    /// - Throws: ``GATTDecodingError`` naming the offset and what was expected there.
    public func decode(_ bytes: [UInt8]) throws(GATTDecodingError) -> any GATTPayload {
        try type.decode(bytes)
    }

    public static func == (lhs: PayloadDecoder, rhs: PayloadDecoder) -> Bool {
        ObjectIdentifier(lhs.type) == ObjectIdentifier(rhs.type)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
    }
}
