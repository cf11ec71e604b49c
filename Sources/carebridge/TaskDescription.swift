import CarePlan

/// Short human descriptions of schedules for tables.
enum TaskDescription {
    static func element(_ element: ScheduleElement) -> String {
        var text: String
        if let weekly = element.weeklyOccurrences {
            text = "weekly \(weekly.map(String.init).joined(separator: ",")) (Sun…Sat) from \(element.start)"
        } else {
            text = "every \(element.interval) from \(element.start)"
        }
        if let end = element.end { text += " until \(end)" }
        text += element.duration == .allDay ? ", all day" : ", \(element.duration) s"
        if !element.targetValues.isEmpty {
            text +=
                ", target "
                + element.targetValues.map { "\($0.value)\($0.unit.map { " \($0)" } ?? "")" }
                .joined(separator: " + ")
        }
        if let label = element.text { text += " — \(label)" }
        return text
    }

    static func schedule(_ schedule: Schedule) -> String {
        schedule.elements.map(element).joined(separator: "; ")
    }
}
