import BridgeCore
import CarePlan
import CareStore
import Foundation
import Hummingbird
import Logging
import NIOPosix
import SampleExport

/// `/patients/:patient/devices`: the patient's devices (the registry's and those that brought a reading lately)
/// with the last reading and the user slot; and the unassigned inbox, for the users who may see it
/// (``CareStore/CareUser/maySeeInbox``), with "This was …" for each patient they see, which files the reading
/// under that patient through `/patients/:patient/inbox/:sample/assign` (so ``PatientAccessMiddleware`` checks
/// the patient it is filed under).
struct DevicesRoutes {
    let app: CareWebApp

    /// How far back a device's last reading is looked for.
    static let days = 90
    /// At most this many inbox readings on the page, oldest first.
    static let inboxLimit = 100

    func add(to group: RouterGroup<WebContext>) {
        group.get("devices") { _, context in try await page(context: context) }
        group.post("inbox/:sample/assign") { request, context in try await assign(request, context: context) }
    }

    private func page(context: WebContext) async throws -> Response {
        let user = try context.requireUser()
        let patient = try await app.patient(context)
        let zone = app.store.bridgeZone
        let now = app.now()
        let devices = try await app.store.devices(
            of: patient.id,
            since: now.addingTimeInterval(-Double(Self.days) * 86400)
        )
        var content: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "onDevices": true, "days": Self.days,
            "devices": devices.map { device(patient: patient, $0, zone: zone) }, "hasDevices": !devices.isEmpty,
        ]
        if user.maySeeInbox {
            let store = app.store
            let query = SampleQuery(quarantine: .included, limit: Self.inboxLimit, unassignedOnly: true)
            let inbox = try await NIOThreadPool.singleton.runIfActive { try store.samples(matching: query) }
            let patients = try await store.patients().filter { user.maySee(patientID: $0.id) }
            content["inbox"] =
                [
                    "hasReadings": !inbox.isEmpty,
                    "readings": inbox.map { stored -> [String: Any] in
                        var row = ReadingsPage.row(stored, reviews: [], user: user, zone: zone)
                        row["reason"] = stored.inboxReason.map { "Not filed: \($0)." } ?? ""
                        row["readingID"] = stored.id.uuidString.lowercased()
                        row["patients"] = patients.map { ["patientID": $0.id, "patientName": $0.name] }
                        return row
                    },
                ] as [String: Any]
        }
        return app.pages.page(
            title: "\(patient.name): devices",
            template: "devices",
            content: content,
            session: context.session,
            live: "/patients/\(patient.id)/live"
        )
    }

    private func device(patient: Patient, _ device: SeenDevice, zone: TimeZone) -> [String: Any] {
        let identity = device.identity
        var row: [String: Any] = [
            "name": identity.name ?? identity.model ?? identity.address ?? identity.serial ?? "A device",
            // The bridge does not store battery levels yet: said, not left out.
            "battery": "not reported to the bridge",
        ]
        if let address = identity.address ?? identity.serial { row["address"] = address }
        let slots = device.assignments.compactMap(\.slot)
        if device.assignments.isEmpty {
            row["filed"] =
                "Not registered: its readings reached \(patient.name) another way (the only patient, or filed from the inbox)"
        } else if device.assignments.contains(where: \.shared) {
            row["filed"] = "Shared: readings are told apart by weight"
        } else {
            row["filed"] =
                slots.isEmpty ? "Registered to \(patient.name)" : "Registered to \(patient.name) (a user slot)"
        }
        var slotText = slots.map(String.init)
        if let last = device.lastReading {
            let sample = last.sample
            let day = CalendarDay(containing: sample.start, zone: zone)
            row["last"] =
                "\(sample.type.title.capitalizedFirst) \(ReadingsPage.value(sample)), "
                + "\(day.shortLabel(zone: zone)) \(CalendarDay.time(sample.start, zone: zone))"
            if slotText.isEmpty, let slot = sample.metadata["userID"] { slotText = [slot] }
        } else {
            row["last"] = "None in the last \(Self.days) days"
        }
        if !slotText.isEmpty { row["slot"] = slotText.joined(separator: ", ") }
        return row
    }

    /// Files an inbox reading (and the rest of its measurement) under the patient of the route.
    private func assign(_ request: Request, context: WebContext) async throws -> Response {
        let (_, session) = try await FormBody.checked(request, context: context)
        let user = session.user
        guard user.maySeeInbox else {
            throw WebError(.forbidden, "Only the care team and caregivers file readings from the inbox.")
        }
        let patient = try await app.patient(context)
        let text = try context.parameters.require("sample")
        guard let id = UUID(uuidString: text) else { throw WebError(.notFound, "There is no reading '\(text)'.") }
        let store = app.store
        let now = app.now()
        let patientID = patient.id
        let by = user.id
        let result: InboxAssignment
        do {
            result = try await NIOThreadPool.singleton.runIfActive {
                try store.assignSample(id: id, to: patientID, at: now, by: by)
            }
        } catch let error as CareStoreError where error.code == .sampleNotFound {
            throw WebError(.notFound, "That reading is no longer in the inbox.")
        }
        app.logger.info("care app: \(by) filed \(result.samples.count) inbox reading(s) under \(patientID)")
        return .redirect(to: "/patients/\(patientID)/devices#inbox", type: .normal)
    }
}
