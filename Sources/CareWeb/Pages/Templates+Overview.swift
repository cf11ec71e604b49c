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

    /// One patient of the overview: the latest readings and the open alerts.
    static let overviewPatient = """
        <h1>{{name}} <span class="sub">{{homes}}</span></h1>
        <h2>Open alerts</h2>
        {{#alertList}}<p class="alert {{severity}}" data-alert>{{message}} ({{at}})</p>{{/alertList}}
        {{^alertList}}<p>None.</p>{{/alertList}}
        <h2>Latest readings</h2>
        <ul class="readings">{{#readings}}<li>{{text}} ({{at}})</li>{{/readings}}</ul>
        {{^readings}}<p>No reading in the last week.</p>{{/readings}}
        """
}
