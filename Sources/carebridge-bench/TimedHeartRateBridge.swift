import BlueZTransport
import BridgeCore
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import TestSupport

/// The live path both latency benchmarks measure (`bluez-latency` against the fake bluetoothd,
/// `--real-bluez-latency` in the QEMU guest): a CareStore on disk whose plan links heart rate to a daily event,
/// the `Devices/` catalogue, a BlueZTransport, a ``TimingSink`` stamping the commit of every sample, and the
/// pipeline running in a task.
struct TimedHeartRateBridge {
    let transport: BlueZTransport
    let sink: TimingSink
    let pipeline: Task<PipelineReport, any Error>

    /// Opens the store in `directory`, applies the plan and starts the pipeline on `configuration`'s bus.
    static func start(
        configuration: BlueZConfiguration,
        zone: TimeZone,
        directory: URL,
        logger: Logger
    ) async throws -> TimedHeartRateBridge {
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: zone,
            logger: logger
        )
        let plan = """
            {"tasks": [{"id": "heart-rate", "title": "Heart rate", "kind": "assessment",
              "schedule": {"timeZone": "\(zone.identifier)", "elements": [{"start": "2020-01-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
              "linkage": {"type": "heartRate", "unit": "/min", "aggregation": "last"}}]}
            """
        try await store.applyPlan(
            try CarePlanDocument.parse(Data(plan.utf8), path: "bench-plan.json", bridgeZone: zone)
        )
        let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
        let transport = BlueZTransport(configuration: configuration, policy: catalog, logger: logger)
        let sink = TimingSink(inner: CareStoreSink(store: store, recordedAt: Date()))
        let pipeline = Task {
            try await PipelineRunner.run(
                transport,
                catalog: catalog,
                configuration: PipelineConfiguration(timeZone: zone),
                sink: sink,
                logger: logger
            )
        }
        return TimedHeartRateBridge(transport: transport, sink: sink, pipeline: pipeline)
    }

    /// Stops the transport and waits for the pipeline to end.
    func stop() async {
        transport.shutdown.request()
        _ = try? await pipeline.value
    }
}
