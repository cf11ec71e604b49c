import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore

struct Patients: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add and show the patients of the store.",
        discussion: """
            A store holds patients; each has care plans, plans have tasks and contacts. A store with one patient \
            works without naming it; with several, commands that read or write one patient's care data take \
            --patient ID. A store written before patients existed has one patient, `default`. Plan files can \
            carry the patient, the plan and its contacts (see `carebridge plan apply --help`).

            Examples:
              carebridge patients
              carebridge patients add bed-1 --name "Ada Lovelace"
              carebridge patients show bed-1
            """,
        subcommands: [PatientsList.self, PatientsAdd.self, PatientsShow.self],
        defaultSubcommand: PatientsList.self
    )

    static func json(_ patient: Patient, plans: [PatientPlan]) -> JSONValue {
        .object([
            "id": .string(patient.id), "name": .string(patient.name),
            "birthday": patient.birthday.map(JSONValue.string) ?? .null,
            "sex": patient.sex.map { .string($0.rawValue) } ?? .null,
            "allergies": .array(patient.allergies.map(JSONValue.string)),
            "identifiers": .array(
                patient.identifiers.map {
                    .object([
                        "system": $0.system.map(JSONValue.string) ?? .null, "value": .string($0.value),
                        "type": $0.type.map(JSONValue.string) ?? .null,
                    ])
                }
            ),
            "plans": .array(plans.map { .object(["id": .string($0.id), "title": .string($0.title)]) }),
        ])
    }
}

struct PatientsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the patients (the default of `carebridge patients`).",
        discussion:
            "JSON (--json): [{\"id\", \"name\", \"birthday\", \"sex\", \"allergies\", \"identifiers\", \"plans\"}].\n\nExamples:\n  carebridge patients list --json\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        do {
            let patients = try await store.patients()
            let plans = try await store.plans()
            if json {
                let rows = patients.map { patient in
                    Patients.json(patient, plans: plans.filter { $0.patientID == patient.id })
                }
                print(JSONValue.array(rows).serialized(pretty: Output.isTerminal))
                return
            }
            guard !patients.isEmpty else {
                print(
                    "no patients: everything belongs to the store's one implicit patient (add one with `carebridge patients add`)"
                )
                return
            }
            var table = Table(["ID", "NAME", "BIRTHDAY", "IDENTIFIERS", "PLANS"])
            for patient in patients {
                table.append([
                    patient.id, patient.name, patient.birthday ?? "",
                    patient.identifiers.map { "\($0.type ?? "id") \($0.value)" }.joined(separator: ", "),
                    plans.filter { $0.patientID == patient.id }.map(\.id).joined(separator: ", "),
                ])
            }
            print(table.render())
            let inbox = try await store.unassignedCount()
            if inbox > 0 { print("\(inbox) reading(s) wait in the unassigned inbox: carebridge samples --unassigned") }
        } catch {
            throw StoreExit.fail(error)
        }
    }
}

struct PatientsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a patient, or a new version of one (changed fields; earlier versions are kept).",
        discussion: """
            The first patient added to a store that had none takes over what it holds (tasks and readings). A \
            new patient gets a care plan of its own (id = the patient id) for its tasks.

            Examples:
              carebridge patients add bed-1 --name "Ada Lovelace" --birthday 1940-12-10 \\
                  --sex female --mrn 0042-17 --allergy penicillin
              carebridge patients add alice --name "Alice" \\
                  --identifier urn:oid:1.2.36.146.595.217.0.1=A123

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The patient id (letters, digits, '-', '_'; it names MQTT topics).")
    var id: String

    @Option(name: .long, help: "The name as people read it.")
    var name: String

    @Option(name: .long, help: "Date of birth, YYYY-MM-DD.")
    var birthday: String?

    @Option(name: .long, help: "female, male, other or unknown.")
    var sex: String?

    @Option(name: .long, help: "An allergy (repeatable).")
    var allergy: [String] = []

    @Option(name: .long, help: "The medical record number (identifier type MR).")
    var mrn: String?

    @Option(name: .long, help: "Another identifier as SYSTEM=VALUE (repeatable).")
    var identifier: [String] = []

    @Flag(name: .long, help: "Print the patient as JSON.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        var identifiers: [PatientIdentifier] = []
        if let mrn { identifiers.append(PatientIdentifier(value: mrn, type: "MR")) }
        for text in identifier {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex,
                text.index(after: equals) != text.endIndex
            else {
                Output.error("--identifier \(text): expected SYSTEM=VALUE")
                throw ExitCode(StoreExit.usage)
            }
            identifiers.append(
                PatientIdentifier(system: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
            )
        }
        var parsedSex: Patient.Sex?
        if let sex {
            guard let value = Patient.Sex(rawValue: sex) else {
                Output.error("--sex \(sex): expected female, male, other or unknown")
                throw ExitCode(StoreExit.usage)
            }
            parsedSex = value
        }
        let patient = Patient(
            id: id,
            name: name,
            birthday: birthday,
            sex: parsedSex,
            allergies: allergy,
            identifiers: identifiers
        )
        let store = try await storeOptions.open(zone: zone, patients: .any)
        do {
            let result = try await store.savePatient(patient)
            if json {
                print(Patients.json(patient, plans: try await store.plans(patientID: id)).serialized())
                return
            }
            switch result {
            case .added: print("added patient \(id)")
            case .updated: print("patient \(id): new version (the earlier one is kept)")
            case .unchanged: print("patient \(id) unchanged")
            }
        } catch {
            throw StoreExit.fail(error)
        }
    }
}

struct PatientsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one patient: fields, plans, tasks, contacts, devices and how many readings.",
        discussion: """
            Examples:
              carebridge patients show bed-1
              carebridge patients show bed-1 --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The patient id.")
    var id: String

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let opened = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        do {
            _ = try await opened.resolvePatient(id)
            let store = opened.scoped(to: id)
            guard let patient = try await store.patient(id: id) else { throw ExitCode(StoreExit.notFound) }
            let plans = try await store.plans(patientID: id)
            let tasks = try await store.tasks()
            let contacts = try await store.contacts(patientID: id)
            let devices = try await store.deviceAssignments().filter { $0.patientID == id }
            let readings = try await store.samples(matching: SampleQuery()).count
            if json {
                guard case .object(var object) = Patients.json(patient, plans: plans) else { return }
                object["tasks"] = .array(tasks.map { .string($0.task.id) })
                object["contacts"] = .array(contacts.map { .string($0.id) })
                object["devices"] = .array(
                    devices.map { row in .string(row.slot.map { "\(row.device) slot \($0)" } ?? row.device) }
                )
                object["readings"] = .int(readings)
                print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
                return
            }
            print("\(patient.name) (\(patient.id))")
            if let birthday = patient.birthday { print("  born        \(birthday)") }
            if let sex = patient.sex { print("  sex         \(sex.rawValue)") }
            if !patient.allergies.isEmpty { print("  allergies   \(patient.allergies.joined(separator: ", "))") }
            for identifier in patient.identifiers {
                print("  identifier  \(identifier.type ?? identifier.system ?? "id") \(identifier.value)")
            }
            for plan in plans { print("  plan        \(plan.id): \(plan.title)") }
            print("  tasks       \(tasks.isEmpty ? "none" : tasks.map(\.task.id).joined(separator: ", "))")
            for contact in contacts {
                print("  contact     \(contact.name) (\(contact.role ?? contact.category.rawValue))")
            }
            for device in devices {
                let slot = device.slot.map { " slot \($0)" } ?? ""
                print("  device      \(device.device)\(slot)\(device.shared ? " (shared, weight band)" : "")")
            }
            print("  readings    \(readings)")
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
    }
}
