import BridgeFoundation
import Testing

@Suite struct JSONReaderTests {
    @Test func pathsNameKeysAndIndices() {
        let path = JSONPath().appending("tasks").appending(index: 0).appending("schedule").appending("elements")
            .appending(index: 1)
        #expect(path.description == "tasks[0].schedule.elements[1]")
        #expect(JSONPath().description == "")
        #expect(JSONPath().isRoot)
    }

    @Test func errorsCarryThePath() throws {
        let root = JSONReader(try JSONValue.parse(#"{"tasks": [{"id": 3}]}"#))
        let tasks = try root.object(allowing: ["tasks"]).required("tasks").array()
        let task = try tasks[0].object()
        #expect {
            try task.required("id").string()
        } throws: { error in
            (error as? JSONReadError)?.description == "tasks[0].id: expected a string, got a number"
        }
        #expect {
            try task.required("title")
        } throws: { error in
            (error as? JSONReadError)?.description == "tasks[0].title: missing required key \"title\""
        }
    }

    @Test func unknownKeysAreNamedUnlessIgnored() throws {
        let value = try JSONValue.parse(#"{"id": "x", "_note": "hi", "colour": 1}"#)
        #expect {
            try JSONReader(value).object(allowing: ["id"], ignoringPrefix: "_")
        } throws: { error in
            (error as? JSONReadError)?.path.description == "colour"
        }
        #expect(throws: Never.self) { try JSONReader(value).object(allowing: ["id", "colour"], ignoringPrefix: "_") }
    }

    @Test func numbers() throws {
        #expect(try JSONReader(.double(3.0)).integer() == 3)
        #expect(throws: JSONReadError.self) { try JSONReader(.double(3.5)).integer() }
        #expect(try JSONReader(.int(2)).number() == 2)
        #expect(throws: JSONReadError.self) { try JSONReader(.string("2")).number() }
    }
}
