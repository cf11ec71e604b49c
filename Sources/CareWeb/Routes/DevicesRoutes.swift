import BridgeCore
import CarePlan
import CareStore
import Foundation
import Hummingbird
import Logging
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
        let shown = ShownTime(user: user, bridgeZone: app.store.bridgeZone)
        let now = app.now()
        let devices = try await app.store.devices(
            of: patient.id,
            since: now.addingTimeInterval(-Double(Self.days) * 86400)
        )
        let batteries = try await app.store.batteryLevels()
        var content: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "onDevices": true, "days": Self.days,
            "devices": devices.map { device(patient: patient, $0, battery: batteries[$0.identity.key], shown: shown) },
            "hasDevices": !devices.isEmpty,
        ]
        if let note = shown.note(patientName: patient.name, at: now) { content["zoneNote"] = note }
        if user.maySeeInbox {
            let store = app.store
            let query = SampleQuery(quarantine: .included, limit: Self.inboxLimit, unassignedOnly: true)
            let inbox = try await store.samples(matching: query)
            let patients = try await store.patients().filter { user.maySee(patientID: $0.id) }
            let measurements = Self.measurements(inbox)
            content["inbox"] =
                [
                    "hasReadings": !measurements.isEmpty,
                    "readings": measurements.map { values -> [String: Any] in
                        let first = values[0]
                        var row = ReadingsPage.row(first, reviews: [], user: user, shown: shown)
                        row["what"] = values.map {
                            "\($0.sample.type.title.capitalizedFirst) \(ReadingsPage.value($0.sample))"
                        }.joined(separator: ", ")
                        row["notes"] = values.flatMap { ReadingsPage.notes($0, reviews: []) }
                        row["reason"] = first.inboxReason.map { "Not filed: \($0)." } ?? ""
                        row["readingID"] = first.id.uuidString.lowercased()
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

    /// Inbox readings by measurement (the values one device sent at one instant: a blood pressure's systolic,
    /// diastolic, mean and pulse), in the order read; filing one files them all (``CareStore/assignSample``).
    static func measurements(_ readings: [StoredSample]) -> [[StoredSample]] {
        var groups: [[StoredSample]] = []
        var index: [String: Int] = [:]
        for stored in readings {
            let sample = stored.sample
            guard let device = sample.source.device else {
                groups.append([stored])
                continue
            }
            let key = "\(device.address ?? device.serial ?? "")|\(sample.start.timeIntervalSince1970)"
            if let at = index[key] {
                groups[at].append(stored)
            } else {
                index[key] = groups.count
                groups.append([stored])
            }
        }
        return groups
    }

    private func device(
        patient: Patient,
        _ device: SeenDevice,
        battery: (level: Int, at: Date)?,
        shown: ShownTime
    ) -> [String: Any] {
        let identity = device.identity
        let made = [identity.manufacturer, identity.model].compactMap { $0 }.joined(separator: " ")
        let name = [identity.name, made.isEmpty ? nil : made].compactMap { $0 }.joined(separator: ", ")
        var row: [String: Any] = [
            "name": name.isEmpty ? identity.address ?? identity.serial ?? "A device" : name,
            // A device without a Battery Service (or not connected yet) says so rather than leaving it out.
            "battery": battery.map { level, at in
                "\(level) %\(level <= 10 ? ", replace soon" : ""), read \(shown.dateTime(at))"
            } ?? "not reported to the bridge",
        ]
        if let address = identity.address ?? identity.serial { row["address"] = address }
        let slots = device.assignments.compactMap(\.slot)
        if device.assignments.isEmpty {
            row["filed"] = "Not registered; " + Self.routedBy(device.lastReading?.routedBy)
        } else if device.assignments.contains(where: \.shared) {
            row["filed"] = "Shared: readings are told apart by weight"
        } else {
            row["filed"] =
                slots.isEmpty ? "Registered to \(patient.name)" : "Registered to \(patient.name) (a user slot)"
        }
        var slotText = slots.map(String.init)
        if let last = device.lastReading {
            let sample = last.sample
            row["last"] =
                "\(sample.type.title.capitalizedFirst) \(ReadingsPage.value(sample)), \(shown.dateTime(sample.start))"
            if slotText.isEmpty, let slot = sample.metadata["userID"] { slotText = [slot] }
        } else {
            row["last"] = "None in the last \(Self.days) days"
        }
        if !slotText.isEmpty { row["slot"] = slotText.joined(separator: ", ") }
        return row
    }

    /// How an unregistered device's reading came to the patient, from the store's `routedBy`.
    static func routedBy(_ rule: String?) -> String {
        guard let rule else { return "no reading lately" }
        if rule == "explicit" { return "its readings were stored for this patient by name" }
        if rule == "only patient" { return "the bridge has only this patient" }
        if rule.hasPrefix("assigned") { return "its readings were filed from the inbox" }
        return "readings filed by \(rule)"
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
            result = try await store.assignSample(id: id, to: patientID, at: now, by: by)
        } catch {
            guard error.code == .sampleNotFound else { throw error }
            throw WebError(.notFound, "That reading is no longer in the inbox.")
        }
        app.logger.info("care app: \(by) filed \(result.samples.count) inbox reading(s) under \(patientID)")
        return .redirect(to: "/patients/\(patientID)/devices#inbox", type: .normal)
    }
}
