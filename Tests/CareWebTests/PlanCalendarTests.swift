import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import TestSupport
import Testing

/// The care plan as an iCalendar feed (`/api/patients/:patient/calendar.ics`), parsed by an independent reader
/// (python3-icalendar) and checked line by line against RFC 5545: the next 14 days' events with stable UIDs,
/// text escaped and folded, all-day events as dates, timed ones in UTC; reached with a session or with HTTP Basic
/// as a calendar app subscribes, and refused for another patient or a wrong password.
@Suite struct PlanCalendarTests {
    static let python = "/usr/bin/python3"
    static var pythonAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// A task whose title needs every escape and a fold inside a two-byte character.
    static let awkwardTitle = "Blutdruck; links, rechts\\beide — \(String(repeating: "ü", count: 40)) messen"
    static let extraTask = """
        , {"id": "awkward", "title": "\(awkwardTitle.replacingOccurrences(of: "\\", with: "\\\\"))",
           "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [
             {"start": "2026-11-01T18:30:00", "interval": {"days": 7}, "duration": 0,
              "text": "Sitzend,\\nnach 5 Minuten Ruhe"}]}}
        """

    /// What python3-icalendar reads of `ics`: one object per VEVENT.
    func parsed(_ ics: String, in scratch: ScratchDirectory) async throws -> [[String: String]] {
        let file = scratch.path("plan.ics")
        try Data(ics.utf8).write(to: URL(fileURLWithPath: file))
        let script = """
            import icalendar, json, sys
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            assert calendar['VERSION'] == '2.0' and calendar['PRODID']
            events = []
            for event in calendar.walk('VEVENT'):
                item = {key: str(event[key]) for key in ('UID', 'SUMMARY') if key in event}
                if 'CATEGORIES' in event: item['CATEGORIES'] = ','.join(str(c) for c in event['CATEGORIES'].cats)
                item['DTSTART'] = event.decoded('DTSTART').isoformat()
                if 'DTEND' in event: item['DTEND'] = event.decoded('DTEND').isoformat()
                if 'DESCRIPTION' in event: item['DESCRIPTION'] = str(event['DESCRIPTION'])
                events.append(item)
            print(json.dumps(events))
            """
        let output = try await ChildProcess.run(URL(fileURLWithPath: Self.python), ["-c", script, file])
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONSerialization.jsonObject(with: output.stdout) as? [[String: String]] ?? []
    }

    @Test(.enabled(if: pythonAvailable, "no /usr/bin/python3"))
    func theFeedHoldsTheNextTwoWeeksWithStableUIDsAndReadsBackExactly() async throws {
        let fixture = try await CareAppFixture()
        let document = try CarePlanDocument.parse(
            Data(CareAppFixture.plan("anna", extraTasks: Self.extraTask).utf8),
            path: "anna.json",
            bridgeZone: CareAppFixture.zone
        )
        _ = try await fixture.store.applyPlan(document, at: CareAppFixture.start.addingTimeInterval(-86400))
        let fetched = Mutex<[String]>([])
        try await fixture.test { browser in
            try await browser.signIn("anna")
            for _ in 0..<2 {
                let page = try await browser.get("/api/patients/anna/calendar.ics")
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/calendar; charset=utf-8")
                fetched.withLock { $0.append(page.text) }
            }
        }
        let feeds = fetched.withLock { $0 }
        try #require(feeds.count == 2)
        let ics = feeds[0]
        // RFC 5545 §3.1: CRLF line ends, at most 75 octets a line, continuation lines start with a space.
        #expect(ics.hasSuffix("END:VCALENDAR\r\n"))
        let lines = ics.components(separatedBy: "\r\n").dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 75 && !$0.contains("\n") && !$0.contains("\r") })
        #expect(lines.contains { $0.hasPrefix(" ") }, "the long title is folded")

        let events = try await parsed(ics, in: fixture.scratch)
        // 14 days from Friday 27 November: three daily tasks, and the weekly one on the Sundays (its start, 1 November,
        // is one) 29 November and 6 December.
        #expect(events.count == 14 * 3 + 2, "\(events.count)")
        #expect(Set(events.compactMap { $0["UID"] }).count == events.count, "UIDs are unique")
        #expect(try await parsed(feeds[1], in: fixture.scratch).map { $0["UID"] } == events.map { $0["UID"] })
        let tablets = events.filter { $0["SUMMARY"] == "Take your tablet" }
        #expect(tablets.first?["DTSTART"] == "2026-11-27T07:00:00+00:00", "08:00 in Berlin, in UTC")
        #expect(tablets.first?["DTEND"] == "2026-11-27T09:00:00+00:00")
        let pain = events.filter { $0["SUMMARY"] == "How bad is the pain?" }
        #expect(pain.first?["DTSTART"] == "2026-11-27" && pain.first?["DTEND"] == "2026-11-28", "an all-day date")
        let awkward = try #require(events.first { $0["SUMMARY"] == Self.awkwardTitle }, "\(events)")
        #expect(awkward["DTSTART"] == "2026-11-29T17:30:00+00:00" && awkward["DTEND"] == nil, "an instant")
        #expect(awkward["DESCRIPTION"] == "Sitzend,\nnach 5 Minuten Ruhe")
        #expect(awkward["CATEGORIES"] == "intervention")
    }

    @Test func aCalendarAppSignsInWithBasicAndSeesOnlyItsPatient() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            func basic(_ user: String, _ password: String, _ path: String) async throws -> Browser.Page {
                let response = try await browser.client.execute(
                    uri: path,
                    method: .get,
                    headers: [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()],
                    body: nil
                )
                return Browser.Page(
                    status: response.status,
                    headers: response.headers,
                    text: String(buffer: response.body)
                )
            }
            let own = try await basic("anna", CareAppFixture.password, "/api/patients/anna/calendar.ics")
            #expect(own.status == .ok && own.text.hasPrefix("BEGIN:VCALENDAR\r\n"))
            #expect(own.headers[.setCookie] == nil, "no session is started")
            let other = try await basic("anna", CareAppFixture.password, "/api/patients/bob/calendar.ics")
            #expect(other.status == .forbidden && !other.text.contains("Bob Weber"))
            let wrong = try await basic("anna", "not the password", "/api/patients/anna/calendar.ics")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=") == true)
            let anonymous = try await browser.get("/api/patients/anna/calendar.ics")
            #expect(anonymous.status == .unauthorized && anonymous.headers[.wwwAuthenticate] != nil)
            // Basic is for the calendar feed only: another route ignores it.
            let today = try await basic("anna", CareAppFixture.password, "/api/patients/anna/today")
            #expect(today.status == .unauthorized)
        }
    }
}
