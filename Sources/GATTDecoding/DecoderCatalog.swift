public import BridgeFoundation

/// Every decoder CareBridge ships, for lookup by UUID or by the identifier device profiles use.
public enum DecoderCatalog {
    /// All decoders, characteristic values first, then advertisement formats.
    public static let all: [any GATTPayload.Type] = [
        DateTime.self,
        WeightMeasurement.self,
        WeightScaleFeature.self,
        BodyCompositionMeasurement.self,
        BodyCompositionFeature.self,
        TemperatureMeasurement.self,
        IntermediateTemperature.self,
        TemperatureType.self,
        HeartRateMeasurement.self,
        BodySensorLocation.self,
        BloodPressureMeasurement.self,
        IntermediateCuffPressure.self,
        BloodPressureFeature.self,
        GlucoseMeasurement.self,
        GlucoseMeasurementContext.self,
        RecordAccessControlPoint.self,
        UserControlPoint.self,
        PLXSpotCheckMeasurement.self,
        PLXContinuousMeasurement.self,
        PLXFeatures.self,
        CurrentTime.self,
        LiveHealthObservations.self,
        StoredHealthObservations.self,
        HealthSensorFeatures.self,
        ObservationScheduleChanged.self,
        ElapsedTime.self,
        BatteryLevel.self,
        ManufacturerNameString.self,
        ModelNumberString.self,
        SerialNumberString.self,
        HardwareRevisionString.self,
        FirmwareRevisionString.self,
        SoftwareRevisionString.self,
        SystemID.self,
        PnPID.self,
        // Advertisement formats (Service Data)
        MiScaleV1.self,
        MiBodyCompositionScale2.self,
    ]

    /// The default decoder for a characteristic UUID.
    public static func decoder(forCharacteristic uuid: BluetoothUUID) -> (any GATTPayload.Type)? {
        all.first { $0.source == .characteristic(uuid) }
    }

    /// The default decoder for a service-data UUID (advertisement-only scales).
    public static func decoder(forServiceData uuid: BluetoothUUID) -> (any GATTPayload.Type)? {
        all.first { $0.source == .serviceData(uuid) }
    }

    /// The decoder a device profile names, e.g. `heart-rate-measurement`.
    public static func decoder(identifier: String) -> (any GATTPayload.Type)? {
        all.first { $0.identifier == identifier }
    }
}
