public import BridgeCore
public import BridgeFoundation
public import DeviceSessions
public import FrameDecoding
import GATTDecoding

/// How CareBridge recognises one kind of device and what it does with it: one `Devices/*.json` file.
///
/// Profiles are declarative data. Code reads them; code never special-cases device names.
public struct DeviceProfile: Sendable, Hashable {
    /// Stable id, e.g. `mi-body-composition-scale-2` (the file name without `.json` by convention).
    public var id: String
    /// Human name, e.g. `Xiaomi Mi Body Composition Scale 2`.
    public var name: String
    public var match: Match
    public var linkMode: ConnectionPlan.LinkMode
    /// GATT characteristics the bridge subscribes to or reads, each with the decoder that reads it.
    public var characteristics: [Characteristic]
    /// Advertisement Service Data formats (broadcast scales), each with its decoder.
    public var serviceData: [ServiceData]
    /// Advertisement Manufacturer Data formats (broadcast devices), each with its frames (`manufacturerData`).
    public var manufacturerData: [ManufacturerData] = []
    /// Hex values with the samples they must give (`fixtures`), run by `carebridge profile test`.
    public var fixtures: [ProfileFixture] = []
    public var quirks: Quirks
    public var tuning: Tuning
    /// Free text for people reading the file.
    public var notes: String?
    /// The device's measurement range per type, in the type's canonical unit (`measurementRange` in the
    /// profile): the limit a LO/HI result is stored with, e.g. 20–600 mg/dL for a glucose meter.
    public var measurementRanges: [QuantityType: ClosedRange<Double>] = [:]
    /// Rows that replace the standard plausibility table's for this device (`plausibility` in the profile).
    public var plausibility: [QuantityType: ClosedRange<Double>] = [:]
    /// What the bridge does after connecting (`session` in the profile): writes, awaited responses, variables
    /// kept between sessions. Empty for devices that send on their own.
    public var session = SessionScript()
    /// The Omron memory-map download (`omron` in the profile): its session step and the reader of its records.
    public var omron: OmronMemoryMap?
    /// The Viatom file download (`viatom` in the profile): its session step and the reader of its files.
    public var viatom: ViatomDownload?
    /// How long the device keeps a bond (`bonding`: `once` or `everySession`); nil when the profile says nothing,
    /// which for a profile that requires pairing means `once`.
    public var bonding: BondRenewal?

    public init(
        id: String,
        name: String,
        match: Match,
        linkMode: ConnectionPlan.LinkMode,
        characteristics: [Characteristic] = [],
        serviceData: [ServiceData] = [],
        quirks: Quirks = Quirks(),
        tuning: Tuning = Tuning(),
        notes: String? = nil
    ) {
        self.id = id
        self.name = name
        self.match = match
        self.linkMode = linkMode
        self.characteristics = characteristics
        self.serviceData = serviceData
        self.quirks = quirks
        self.tuning = tuning
        self.notes = notes
    }

    /// What an advertisement must show for this profile to claim the device.
    ///
    /// Every criterion given must hold; within a list, any one entry is enough. Among the profiles that
    /// match, the highest ``priority`` wins.
    public struct Match: Sendable, Hashable {
        /// At least one of these is in the advertised service UUID list.
        public var serviceUUIDs: [BluetoothUUID]
        /// At least one of these is a Service Data key of the advertisement.
        public var serviceData: [BluetoothUUID]
        /// Glob on the advertised name (`*` any run, `?` one character), e.g. `MIBFS*`.
        public var namePattern: String?
        /// The advertisement carries Manufacturer Data for this company identifier.
        public var manufacturerID: UInt16?
        /// At least one of these Manufacturer Data tests holds (`manufacturerData`: company, prefix, mask, length).
        public var manufacturerData: [AdvertisedDataPattern] = []
        /// At least one of these Service Data tests holds (`serviceDataPatterns`).
        public var serviceDataPatterns: [AdvertisedDataPattern] = []
        /// `not`: the profile does not claim an advertisement for which every criterion of one of these holds (the
        /// loader reads at most one; an array only because a struct cannot contain itself).
        public var exclusions: [Match] = []
        public var priority: Int

        public init(
            serviceUUIDs: [BluetoothUUID] = [],
            serviceData: [BluetoothUUID] = [],
            namePattern: String? = nil,
            manufacturerID: UInt16? = nil,
            manufacturerData: [AdvertisedDataPattern] = [],
            serviceDataPatterns: [AdvertisedDataPattern] = [],
            exclusions: [Match] = [],
            priority: Int = 0
        ) {
            self.serviceUUIDs = serviceUUIDs
            self.serviceData = serviceData
            self.namePattern = namePattern
            self.manufacturerID = manufacturerID
            self.manufacturerData = manufacturerData
            self.serviceDataPatterns = serviceDataPatterns
            self.exclusions = exclusions
            self.priority = priority
        }

        /// True when no positive criterion is given (such a profile would claim everything; the loader refuses it).
        /// `not` alone does not count.
        public var isEmpty: Bool {
            serviceUUIDs.isEmpty && serviceData.isEmpty && namePattern == nil && manufacturerID == nil
                && manufacturerData.isEmpty && serviceDataPatterns.isEmpty
        }
    }

    /// One advertisement Service Data format.
    public struct ServiceData: Sendable, Hashable {
        public var uuid: BluetoothUUID
        /// The payload type that reads the Service Data, resolved and checked to give samples when the profile
        /// loads; nil when ``frames`` read it.
        public var decoder: (any SampleProducing.Type)?
        /// The profile's own frames that read the Service Data (`frames`).
        public var frames: FrameSet?
        /// The container the frames read through (`envelope`): nil when they read the value itself.
        public var envelope: Envelope?

        /// A container format of advertised values: the frames read what is inside it.
        public enum Envelope: String, Sendable, Hashable, CaseIterable {
            /// Xiaomi MiBeacon (``MiBeacon``): the frames read each object (id u16le, length, data), decrypted
            /// with the device's bind key when the advertisement is encrypted.
            case miBeacon = "mibeacon"
        }

        public init(
            uuid: BluetoothUUID,
            decoder: (any SampleProducing.Type)?,
            frames: FrameSet? = nil,
            envelope: Envelope? = nil
        ) {
            self.uuid = uuid
            self.decoder = decoder
            self.frames = frames
            self.envelope = envelope
        }

        public static func == (lhs: ServiceData, rhs: ServiceData) -> Bool {
            lhs.uuid == rhs.uuid && lhs.decoder.map(ObjectIdentifier.init) == rhs.decoder.map(ObjectIdentifier.init)
                && lhs.frames == rhs.frames && lhs.envelope == rhs.envelope
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(uuid)
            hasher.combine(decoder.map(ObjectIdentifier.init))
            hasher.combine(frames)
            hasher.combine(envelope)
        }
    }

    /// One advertisement Manufacturer Data format (`manufacturerData`, link `broadcast`): the value after the
    /// company id, read by frames.
    public struct ManufacturerData: Sendable, Hashable {
        public var company: UInt16
        public var frames: FrameSet

        public init(company: UInt16, frames: FrameSet) {
            self.company = company
            self.frames = frames
        }
    }

    /// Device behaviour the pipeline has to work around.
    public struct Quirks: Sendable, Hashable {
        /// The device clock cannot be trusted at all: samples are stamped with the receive time.
        public var clockUnreliable: Bool
        /// The device repeats its reading in many advertisements per weigh-in (collapsed into one sample).
        public var broadcastRepeats: Bool
        /// The device must be bonded before its characteristics can be used.
        public var pairingRequired: Bool
        /// Write Current Time after connecting (when the user allows it).
        public var setDeviceClock: Bool
        /// The device's Date Time stamps are UTC, not its local wall clock (`deviceTimeIsUTC`).
        public var deviceTimeIsUTC = false
        /// A connected device that sends its final frame more than once per weigh-in (`finalRepeats`): a final
        /// frame with the same bytes on the same characteristic as the previous final frame of that name, no
        /// intermediate frame (nor a value no frame selects) between them and at most `weighInGap` seconds after it, is a repeat and stores
        /// nothing.
        public var finalRepeats = false
        /// A broadcast sensor that advertises a new reading whenever its value changes (a worn thermometer,
        /// `broadcastStream`): identical advertisements are still collapsed, but every changed value stores its
        /// samples instead of one sample per quantity per weigh-in.
        public var broadcastStream = false

        public init(
            clockUnreliable: Bool = false,
            broadcastRepeats: Bool = false,
            pairingRequired: Bool = false,
            setDeviceClock: Bool = false
        ) {
            self.clockUnreliable = clockUnreliable
            self.broadcastRepeats = broadcastRepeats
            self.pairingRequired = pairingRequired
            self.setDeviceClock = setDeviceClock
        }
    }

    /// Per-device timing for live transports.
    public struct Tuning: Sendable, Hashable {
        /// First reconnection delay after the device goes away, in seconds.
        public var reconnectBackoff: Double
        /// Longest reconnection delay, in seconds.
        public var reconnectBackoffMax: Double
        /// Pause between connecting and enabling notifications, in seconds.
        public var notifySetupDelay: Double
        /// A broadcast weigh-in ends after this many seconds without an advertisement.
        public var weighInGap: Double

        public init(
            reconnectBackoff: Double = 10,
            reconnectBackoffMax: Double = 40,
            notifySetupDelay: Double = 0,
            weighInGap: Double = 30
        ) {
            self.reconnectBackoff = reconnectBackoff
            self.reconnectBackoffMax = reconnectBackoffMax
            self.notifySetupDelay = notifySetupDelay
            self.weighInGap = weighInGap
        }
    }
}

extension DeviceProfile {
    /// The characteristic entry for `uuid`, if the profile uses it.
    public func characteristic(_ uuid: BluetoothUUID) -> Characteristic? {
        characteristics.first { $0.uuid == uuid }
    }

    /// The Service Data entry for `uuid`, if the profile decodes it.
    public func serviceDataFormat(_ uuid: BluetoothUUID) -> ServiceData? {
        serviceData.first { $0.uuid == uuid }
    }

    /// The connection plan a live transport carries out for a device this profile claimed.
    public var connectionPlan: ConnectionPlan {
        ConnectionPlan(
            profile: id,
            linkMode: linkMode,
            subscribe: characteristics.filter { $0.use == .notify || $0.use == .indicate }.map(\.uuid)
                + (omron?.subscriptions ?? []) + (viatom.map { [$0.notify] } ?? []),
            readOnce: characteristics.filter { $0.use == .read }.map(\.uuid),
            requiresPairing: quirks.pairingRequired,
            bondRenewal: bonding ?? .once,
            setsDeviceClock: quirks.setDeviceClock,
            session: session
        )
    }

    /// A reader of the records that arrive spread over several values (the `omron` memory map, the `viatom`
    /// files), made fresh for each device; nil for profiles whose values each decode on their own.
    public func makeRecordReader() -> (any StreamedRecordReader)? {
        if let omron { return OmronRecordReader(map: omron) }
        return viatom.map { ViatomRecordReader(download: $0) }
    }

    /// Every decoder identifier the profile names (entries read by frames name none).
    public var decoderIdentifiers: [String] {
        characteristics.compactMap(\.decoder?.identifier) + serviceData.compactMap { $0.decoder?.identifier }
    }

    /// The Manufacturer Data entry for `company`, if the profile decodes it.
    public func manufacturerDataFormat(_ company: UInt16) -> ManufacturerData? {
        manufacturerData.first { $0.company == company }
    }
}
