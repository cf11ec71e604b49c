extension Templates {
    /// The care team's overview: one row per patient the user may see, open alerts first.
    static let overview = """
        <h1>Overview</h1>
        <p class="sub">The latest reading of each kind over the last week, and open alerts: most urgent first.</p>
        {{#hasRows}}
        <div class="table-wrap">
        <table class="patients overview">
        <caption class="visually-hidden">Patients by open alerts</caption>
        <thead><tr><th scope="col">Patient</th><th scope="col">Home</th><th scope="col">Open alerts</th><th scope="col">Latest readings</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr class="{{rowClass}}" data-patient="{{id}}">
        <th scope="row"><a href="/overview/{{id}}">{{name}}</a></th>
        <td>{{homes}}</td>
        <td>{{alerts}}</td>
        <td>{{#readings}}<span class="reading">{{text}} ({{at}})</span> {{/readings}}</td>
        </tr>
        {{/rows}}
        </tbody>
        </table>
        </div>
        {{/hasRows}}
        {{^hasRows}}<p>No patients are linked to your account. Ask an admin to link you.</p>{{/hasRows}}
        """

    /// One patient of the overview: the open alerts (each acknowledged here), the latest readings, and the way to
    /// the patient's record day by day.
    static let overviewPatient = """
        <h1>{{name}} <span class="sub">{{homes}}</span></h1>
        {{> overviewPatientNav}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{> alertList}}
        <section aria-labelledby="latest-heading">
        <h2 id="latest-heading">Latest readings</h2>
        <ul class="readings">{{#readings}}<li>{{text}} ({{at}})</li>{{/readings}}</ul>
        {{^readings}}<p>No reading in the last week.</p>{{/readings}}
        </section>
        """

    /// The overview's pages of one patient, the current one marked for screen readers.
    static let overviewPatientNav = """
        <nav class="tabs" aria-label="{{name}}">
        <a href="/overview/{{id}}"{{#onSummary}} aria-current="page"{{/onSummary}}>Alerts and latest</a>
        <a href="/overview/{{id}}/record"{{#onRecord}} aria-current="page"{{/onRecord}}>Record by day</a>
        </nav>
        """

    /// One day of a patient's record: the readings measured that day (flagged and LO/HI ones marked), those held
    /// in quarantine apart, the day's events (done, missed, late or not yet due) and the recorded outcomes of the
    /// day's events by task version; on the hub (`bridged`), the bridges that hold each event and the bridge that
    /// recorded each outcome, in words.
    static let overviewRecord = """
        <h1>{{name}} <span class="sub">{{dayLabel}}</span></h1>
        {{> overviewPatientNav}}
        <nav class="days" aria-label="Days">
        <a href="/overview/{{id}}/record?day={{previousDay}}">Previous day<span class="visually-hidden">: {{previousLabel}}</span></a>
        {{#nextDay}}<a href="/overview/{{id}}/record?day={{nextDay}}">Next day<span class="visually-hidden">: {{nextLabel}}</span></a>{{/nextDay}}
        </nav>
        <form method="get" action="/overview/{{id}}/record" class="filter" aria-label="Which day">
        <div><label for="record-day">Day</label><input id="record-day" name="day" type="date" value="{{day}}"></div>
        <button type="submit">Show the day</button>
        </form>
        <section aria-labelledby="readings-heading">
        <h2 id="readings-heading">Readings</h2>
        {{#usable}}{{#hasRows}}{{> readingTable}}{{/hasRows}}{{^hasRows}}<p>No readings on this day.</p>{{/hasRows}}{{/usable}}
        </section>
        <section aria-labelledby="quarantine-heading">
        <h2 id="quarantine-heading">Held in quarantine</h2>
        {{#held}}{{#hasRows}}<p class="text">Kept apart and not used until the care team releases them.</p>{{> readingTable}}{{/hasRows}}{{^hasRows}}<p>None on this day.</p>{{/hasRows}}{{/held}}
        </section>
        <section aria-labelledby="events-heading">
        <h2 id="events-heading">Events</h2>
        {{#hasEvents}}
        <div class="table-wrap">
        <table class="events">
        <caption class="visually-hidden">Events of {{name}}'s plan on {{dayLabel}}: done, missed or not yet due</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Task</th><th scope="col">Version</th>{{#bridged}}<th scope="col">Bridges</th>{{/bridged}}<th scope="col">State</th></tr></thead>
        <tbody>
        {{#events}}<tr><td>{{when}}</td><th scope="row">{{task}}</th><td>{{version}}</td>{{#bridged}}<td>{{bridges}}</td>{{/bridged}}<td class="{{stateClass}}">{{state}}</td></tr>{{/events}}
        </tbody>
        </table>
        </div>
        {{/hasEvents}}
        {{^hasEvents}}<p>No event of the plan on this day.</p>{{/hasEvents}}
        </section>
        <section aria-labelledby="outcomes-heading">
        <h2 id="outcomes-heading">Recorded outcomes</h2>
        {{#hasOutcomes}}
        <div class="table-wrap">
        <table class="outcomes">
        <caption class="visually-hidden">Outcomes of {{name}} on {{dayLabel}}, by task</caption>
        <thead><tr><th scope="col">Task</th><th scope="col">Version</th><th scope="col">Event</th>{{#bridged}}<th scope="col">Recorded on</th>{{/bridged}}<th scope="col">Outcome</th></tr></thead>
        <tbody>
        {{#outcomes}}<tr><th scope="row">{{task}}</th><td>{{version}}</td><td>{{occurrence}}</td>{{#bridged}}<td>{{bridge}}</td>{{/bridged}}<td>{{outcome}}</td></tr>{{/outcomes}}
        </tbody>
        </table>
        </div>
        {{/hasOutcomes}}
        {{^hasOutcomes}}<p>No outcome recorded on this day.</p>{{/hasOutcomes}}
        </section>
        """
}
