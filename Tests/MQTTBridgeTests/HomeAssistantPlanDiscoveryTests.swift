import CarePlan
import MQTTBridge
import Testing

@Suite struct HomeAssistantPlanDiscoveryTests {
    @Test func commandTopicsNameTheirTaskLevelAndOtherTopicsNone() {
        let discovery = HomeAssistantDiscovery(topicPrefix: "home/care")
        #expect(discovery.planCommandFilter == "home/care/plan/+/complete")
        #expect(discovery.planTopic(task: "Evening walk") == "home/care/plan/evening_walk")
        #expect(discovery.commandTaskLevel("home/care/plan/evening_walk/complete") == "evening_walk")
        #expect(discovery.commandTaskLevel("home/care/plan/evening_walk/state") == nil)
        #expect(discovery.commandTaskLevel("home/plan/walk/complete") == nil)
        #expect(discovery.commandTaskLevel("home/care/plan/a/b/complete") == nil)
    }

    @Test func adherenceIsPerPatientWhenThereAreSeveral() {
        let discovery = HomeAssistantDiscovery()
        #expect(discovery.adherenceTopic(patient: nil) == "carebridge/plan/all/adherence")
        let anna = PatientTag(id: "Anna", name: "Anna")
        #expect(discovery.adherenceTopic(patient: anna) == "carebridge/plan/anna/adherence")
        #expect(
            discovery.adherenceConfig(patient: anna).topic
                == "homeassistant/sensor/carebridge_plan_adherence_anna/config"
        )
    }

    /// One protocol for a ward: the first patient's task keeps its plain key (existing entities stay), a later
    /// patient's task of the same id is keyed `id@patient` and gets its own sensor, button and topics.
    @Test func aTaskIDSeveralPatientsShareGetsOneSensorPerPatientAndTheFirstKeepsItsIds() {
        let discovery = HomeAssistantDiscovery()
        let schedule = Schedule.daily(hour: 8, start: WallClockTime(year: 2026, month: 11, day: 1))
        let first = CareTask(id: "medication", title: "Take medication", kind: .intervention, schedule: schedule)
        var second = first
        second.id = "medication@bed-2"
        #expect(discovery.taskConfig(first).topic == "homeassistant/sensor/carebridge_plan_medication/config")
        #expect(discovery.taskConfig(second).topic == "homeassistant/sensor/carebridge_plan_medication_bed-2/config")
        #expect(discovery.planTopic(task: first.id) == "carebridge/plan/medication")
        #expect(discovery.planTopic(task: second.id) == "carebridge/plan/medication_bed-2")
        #expect(discovery.buttonConfig(first, token: "t").topic != discovery.buttonConfig(second, token: "t").topic)
    }
}
