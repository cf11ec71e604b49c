extension Templates {
    /// The readings table (`rows`, each as ``ReadingsPage`` renders a reading, with `tableCaption`): the bridge's
    /// Readings screen and a patient's record on the overview (the bridge's and the hub's) show readings in it.
    static let readingTable = """
        <div class="table-wrap">
        <table class="readings">
        <caption class="visually-hidden">{{tableCaption}}</caption>
        <thead><tr><th scope="col">Measured</th><th scope="col">Reading</th><th scope="col">Source and notes</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr id="reading-{{id}}" class="{{statusClass}}">
        <td>{{when}}</td>
        <th scope="row"><span class="type">{{type}}</span> <span class="value">{{value}}</span></th>
        <td>{{#source}}<p>{{source}}</p>{{/source}}{{#notes}}<p>{{.}}</p>{{/notes}}{{#canReview}}<a href="/patients/{{patientID}}/readings/{{id}}">Release or delete…<span class="visually-hidden"> {{type}} {{value}}, {{when}}</span></a>{{/canReview}}</td>
        </tr>
        {{/rows}}
        </tbody>
        </table>
        </div>
        """

    /// Readings: the filter (a GET form: works without JavaScript), the table, and the entry form.
    static let readings = """
        <h1>{{patientName}} <span class="sub">Readings, {{periodLabel}}</span></h1>
        {{> patientNav}}
        {{#error}}<p class="error" role="alert" id="entry-error">{{error}}</p>{{/error}}
        <form method="get" action="/patients/{{patientID}}/readings" class="filter" aria-label="Which readings">
        <div><label for="filter-type">Type</label>
        <select id="filter-type" name="type"><option value="">All types</option>
        {{#types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/types}}
        </select></div>
        <div><label for="filter-from">From</label><input id="filter-from" name="from" type="date" value="{{from}}"></div>
        <div><label for="filter-to">To</label><input id="filter-to" name="to" type="date" value="{{to}}"></div>
        <label class="choice"><input type="checkbox" name="show" value="quarantined"{{#quarantinedOnly}} checked{{/quarantinedOnly}}> Only quarantined readings</label>
        <button type="submit">Show readings</button>
        </form>
        <section data-live-region aria-labelledby="readings-heading">
        <h2 id="readings-heading">Readings</h2>
        {{#truncated}}<p class="flag">{{truncated}}</p>{{/truncated}}
        {{#hasRows}}{{> readingTable}}{{/hasRows}}
        {{^hasRows}}<p>No readings in this period.</p>{{/hasRows}}
        </section>
        <section aria-labelledby="entry-heading">
        <h2 id="entry-heading">Type in a reading</h2>
        <form method="post" action="/patients/{{patientID}}/readings" class="entry">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="entry-type">What was measured</label>
        <select id="entry-type" name="type">{{#entryTypes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/entryTypes}}</select>
        <label for="entry-reading">Reading, with its unit</label>
        <input id="entry-reading" name="reading" required value="{{entryReading}}" autocomplete="off" aria-describedby="entry-hint">
        <p class="text" id="entry-hint">As the device shows it: 72.4 kg, 11 st 4 lb, 128/82 mmHg, 72 bpm, 37.2 °C, 5.3 mmol/L, 97 %.</p>
        <label for="entry-at">Measured at ({{entryZone}})</label>
        <input id="entry-at" name="at" type="datetime-local" value="{{entryAt}}">
        <label for="entry-note">Note (optional)</label>
        <input id="entry-note" name="note" value="{{entryNote}}">
        <button class="primary" type="submit">Save reading</button>
        </form>
        </section>
        """

    /// One quarantined reading with Release and Delete, each with a reason; deleting needs a confirmation.
    static let readingReview = """
        <h1>{{patientName}} <span class="sub">A quarantined reading</span></h1>
        {{> patientNav}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <dl class="reading">
        <dt>Measured</dt><dd>{{when}}</dd>
        <dt>Type</dt><dd>{{type}}</dd>
        <dt>Value</dt><dd>{{value}}</dd>
        <dt>Source</dt><dd>{{source}}</dd>
        </dl>
        {{#notes}}<p class="flag">{{.}}</p>{{/notes}}
        <section aria-labelledby="release-heading" class="review">
        <h2 id="release-heading">Release: accept the value</h2>
        <p class="text">It then completes its events and is exported and published like any reading.</p>
        <form method="post" action="/patients/{{patientID}}/readings/{{id}}/release">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="release-reason">Why it is right (kept with the reading)</label>
        <input id="release-reason" name="reason" required>
        <button class="primary" type="submit">Release this reading</button>
        </form>
        </section>
        <section aria-labelledby="delete-heading" class="review danger">
        <h2 id="delete-heading">Delete: the value is wrong</h2>
        <p class="text"><strong>Deleting cannot be undone.</strong> The reading is removed from every list, report and export; a re-import does not bring it back.</p>
        <form method="post" action="/patients/{{patientID}}/readings/{{id}}/delete">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="delete-reason">Why it is wrong</label>
        <input id="delete-reason" name="reason" required>
        <label class="choice"><input type="checkbox" name="confirm" value="yes" required> Yes, delete this reading for good</label>
        <button class="danger" type="submit">Delete this reading</button>
        </form>
        </section>
        <p><a href="/patients/{{patientID}}/readings">Back to the readings</a></p>
        """
}
