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
}
