/// The care app's Mustache templates, compiled into the binary (no files to install, nothing fetched). `{{x}}`
/// escapes HTML; `{{{content}}}` is used only for a page body this renderer produced.
enum Templates {
    static let all: [String: String] = [
        "layout": layout, "login": login, "today": today, "patients": patients, "error": error,
        "patientNav": patientNav, "insights": insights, "connect": connect, "readings": readings,
        "readingReview": readingReview, "devices": devices, "setup": setup, "settings": settings,
        "overview": overview, "overviewPatient": overviewPatient, "overviewRecord": overviewRecord,
        "overviewPatientNav": overviewPatientNav, "alertList": alertList, "readingTable": readingTable,
    ]

    /// The patient's screens, with the current one marked for screen readers.
    static let patientNav = """
        <nav class="tabs" aria-label="{{patientName}}">
        <a href="/patients/{{patientID}}/today"{{#onToday}} aria-current="page"{{/onToday}}>Today</a>
        <a href="/patients/{{patientID}}/readings"{{#onReadings}} aria-current="page"{{/onReadings}}>Readings</a>
        <a href="/patients/{{patientID}}/insights"{{#onInsights}} aria-current="page"{{/onInsights}}>Insights</a>
        <a href="/patients/{{patientID}}/connect"{{#onConnect}} aria-current="page"{{/onConnect}}>Care team</a>
        <a href="/patients/{{patientID}}/devices"{{#onDevices}} aria-current="page"{{/onDevices}}>Devices</a>
        <a href="/patients/{{patientID}}/report">Report (PDF)</a>
        </nav>
        {{#zoneNote}}<p class="text zone-note">{{zoneNote}} <a href="/settings">Change your zone</a></p>{{/zoneNote}}
        """

    /// A patient's open alerts (`alerts`, `hasAlerts`), each with its Acknowledge form (`acknowledgeAction`, and
    /// the alert's `key` when the action does not name it): Insights on a bridge, a patient on the overview.
    static let alertList = """
        <section aria-labelledby="alerts-heading">
        <h2 id="alerts-heading">Open alerts</h2>
        {{#hasAlerts}}
        <ul class="alerts">
        {{#alerts}}
        <li class="alert {{severity}}" data-alert>
        <p><strong>{{severityLabel}}</strong>: {{message}} <span class="when">({{when}})</span></p>
        {{#sentAt}}<p class="pending">Acknowledgement sent to the bridge at {{sentAt}}, waiting for its answer.</p>{{/sentAt}}
        {{^sentAt}}<form method="post" action="{{acknowledgeAction}}" class="act">
        <input type="hidden" name="csrf" value="{{csrf}}">{{#key}}<input type="hidden" name="alert" value="{{key}}">{{/key}}
        <button type="submit">Acknowledge<span class="visually-hidden">: {{message}}</span></button>
        </form>{{/sentAt}}
        </li>
        {{/alerts}}
        </ul>
        {{/hasAlerts}}
        {{^hasAlerts}}<p>No open alerts.</p>{{/hasAlerts}}
        </section>
        """

    static let insights = """
        <h1>{{patientName}} <span class="sub">Insights, {{period}}</span></h1>
        {{> patientNav}}
        {{> alertList}}
        <section aria-labelledby="summary-heading">
        <h2 id="summary-heading">This week</h2>
        <ul>{{#summary}}<li>{{.}}</li>{{/summary}}</ul>
        {{#charts}}<figure class="chart">{{{svg}}}</figure>{{/charts}}
        </section>
        """

    static let connect = """
        <h1>{{patientName}} <span class="sub">Care team and contacts</span></h1>
        {{> patientNav}}
        {{#notice}}<p class="notice" role="status">{{notice}} <a href="{{download}}">Download the report (PDF)</a></p>{{/notice}}
        {{#hasContacts}}
        <ul class="contacts">
        {{#contacts}}
        <li class="contact">
        <h2>{{name}}</h2>
        {{#role}}<p class="text">{{role}}</p>{{/role}}
        <ul class="links">
        {{#phones}}<li><a href="tel:{{dial}}">Call {{shown}}</a></li>{{/phones}}
        {{#messaging}}<li><a href="sms:{{dial}}">Message {{shown}}</a></li>{{/messaging}}
        {{#emails}}<li><a href="mailto:{{.}}">E-mail {{.}}</a></li>{{/emails}}
        {{#map}}<li><a href="https://www.openstreetmap.org/search?query={{map}}">Map: {{address}}</a></li>{{/map}}
        </ul>
        {{#receives}}<p class="text">Receives: {{receives}}</p>{{/receives}}
        {{#shareable}}
        <form method="post" action="/patients/{{patientID}}/connect/share" class="act">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="contact" value="{{id}}">
        <button type="submit">Share this week's report<span class="visually-hidden"> with {{name}}</span></button>
        </form>
        {{/shareable}}
        {{#hasShared}}<p class="text">Shared so far:</p><ul class="shared">{{#shared}}<li>{{.}}</li>{{/shared}}</ul>{{/hasShared}}
        </li>
        {{/contacts}}
        </ul>
        {{/hasContacts}}
        {{^hasContacts}}<p>No contacts in the care plan.</p>{{/hasContacts}}
        """

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · CareBridge</title>
        <link rel="stylesheet" href="/assets/app.css">
        <script src="/assets/app.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
        <a class="brand" href="/">CareBridge</a>
        {{#user}}
        <nav aria-label="Main"><ul>
        {{#bridge}}{{#showPatients}}<li><a href="/patients">Patients</a></li>
        <li><a href="/overview">Overview</a></li>{{/showPatients}}
        <li><a href="/settings">Settings</a></li>{{/bridge}}
        {{#hub}}<li><a href="/overview">Overview</a></li>{{/hub}}
        </ul></nav>
        <form method="post" action="/logout" class="signout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span class="who">{{displayName}}</span>
        <button type="submit">Sign out</button>
        </form>
        {{/user}}
        </header>
        <main id="main" tabindex="-1"{{#live}} data-live="{{live}}"{{/live}}>
        {{{content}}}
        </main>
        <div class="visually-hidden" role="status" aria-live="polite" id="live-status"></div>
        </body>
        </html>
        """

    static let login = """
        <h1>Sign in</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/login" class="login">
        <input type="hidden" name="csrf" value="{{loginToken}}">
        <input type="hidden" name="next" value="{{next}}">
        <label for="username">User name</label>
        <input id="username" name="username" autocomplete="username" autocapitalize="none" required value="{{username}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button class="primary" type="submit">Sign in</button>
        </form>
        """

    /// The first visit with the setup link: the admin account.
    static let setup = """
        <h1>Set up CareBridge</h1>
        <p>Nobody can sign in yet. Create the admin account: it sees every patient and adds the other users (<code>carebridge users add</code>). This link works once.</p>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/setup" class="login">
        <input type="hidden" name="token" value="{{setupToken}}">
        <label for="username">User name</label>
        <input id="username" name="username" autocomplete="username" autocapitalize="none" required value="{{username}}">
        <label for="name">Your name</label>
        <input id="name" name="name" autocomplete="name" required value="{{name}}">
        <label for="password">Password (at least {{minimum}} characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="{{minimum}}" required>
        <label for="again">The password again</label>
        <input id="again" name="again" type="password" autocomplete="new-password" minlength="{{minimum}}" required>
        <button class="primary" type="submit">Create the admin account</button>
        </form>
        """

    static let error = """
        <h1>{{status}}</h1>
        <p class="error" role="alert">{{message}}</p>
        {{#signedOut}}<p><a href="/login">Sign in</a></p>{{/signedOut}}
        {{^signedOut}}<p><a href="/">Back to the start page</a></p>{{/signedOut}}
        """

    static let patients = """
        <h1>Patients</h1>
        <p class="sub">Today, {{dayLabel}}: most urgent first.</p>
        {{#zoneNote}}<p class="text zone-note">{{zoneNote}} <a href="/settings">Change your zone</a></p>{{/zoneNote}}
        {{#hasRows}}
        <div class="table-wrap">
        <table class="patients">
        <caption class="visually-hidden">Patients by urgency</caption>
        <thead><tr><th scope="col">Patient</th><th scope="col">Open alerts</th><th scope="col">Overdue</th><th scope="col">Done today</th><th scope="col">Last readings</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr class="{{rowClass}}">
        <th scope="row"><a href="/patients/{{id}}/today">{{name}}</a></th>
        <td>{{alerts}}</td>
        <td>{{overdue}}</td>
        <td>{{done}} of {{total}}</td>
        <td>{{vitals}}</td>
        </tr>
        {{/rows}}
        </tbody>
        </table>
        </div>
        {{/hasRows}}
        {{^rows}}<p>No patients are linked to your account. Ask the bridge's admin to link you (<code>carebridge users link</code>).</p>{{/rows}}
        """

    static let today = """
        <h1>{{patientName}} <span class="sub">{{dayLabel}}</span></h1>
        {{> patientNav}}
        <nav class="days" aria-label="Days">
        <a href="?day={{prevDay}}" rel="prev">← Previous day</a>
        {{^isToday}}<a href="?day={{today}}">Today</a>{{/isToday}}
        {{#nextDay}}<a href="?day={{nextDay}}" rel="next">Next day →</a>{{/nextDay}}
        </nav>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <section data-live-region aria-labelledby="progress">
        <div class="ring-row">
        <svg class="ring" viewBox="0 0 36 36" role="img" aria-label="{{done}} of {{total}} done">
        <circle class="track" cx="18" cy="18" r="15.9155"></circle>
        <circle class="fill" cx="18" cy="18" r="15.9155" stroke-dasharray="{{percent}} 100"></circle>
        </svg>
        <p id="progress"><strong>{{done}} of {{total}}</strong> done</p>
        </div>
        {{#hasEvents}}
        <ol class="events">
        {{#events}}
        <li class="event {{stateClass}}" id="event-{{anchor}}" data-task="{{task}}">
        <div class="head"><h2>{{title}}</h2><span class="when">{{time}}</span></div>
        {{#text}}<p class="text">{{text}}</p>{{/text}}
        <p class="state">{{stateText}}</p>
        {{#flag}}<p class="flag"><strong>{{flag}}</strong></p>{{/flag}}
        {{#note}}<p class="note">Note: {{note}}</p>{{/note}}
        {{#undone}}<p class="note">{{undone}}</p>{{/undone}}
        {{#canDo}}
        <form method="post" action="/patients/{{patientID}}/today/record" class="act">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="task" value="{{task}}">
        <input type="hidden" name="occurrence" value="{{occurrence}}"><input type="hidden" name="day" value="{{day}}">
        <button class="primary" type="submit" name="action" value="done">Done<span class="visually-hidden">: {{title}}</span></button>
        </form>
        <details><summary>Not done…<span class="visually-hidden"> {{title}}</span></summary>
        <form method="post" action="/patients/{{patientID}}/today/record" class="act">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="task" value="{{task}}">
        <input type="hidden" name="occurrence" value="{{occurrence}}"><input type="hidden" name="day" value="{{day}}">
        <label for="reason-{{anchor}}">Why not?</label>
        <input id="reason-{{anchor}}" name="reason" required>
        <button type="submit" name="action" value="notdone">Save as not done</button>
        </form>
        </details>
        {{/canDo}}
        {{#canUndo}}
        <form method="post" action="/patients/{{patientID}}/today/record" class="act">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="task" value="{{task}}">
        <input type="hidden" name="occurrence" value="{{occurrence}}"><input type="hidden" name="day" value="{{day}}">
        <button type="submit" name="action" value="undo">Undo<span class="visually-hidden">: {{title}}</span></button>
        </form>
        {{/canUndo}}
        {{#answer}}
        <form method="post" action="/patients/{{patientID}}/today/record" class="act answer">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="task" value="{{task}}">
        <input type="hidden" name="occurrence" value="{{occurrence}}"><input type="hidden" name="day" value="{{day}}">
        {{#scale}}<label for="answer-{{anchor}}">{{prompt}}</label>
        <input id="answer-{{anchor}}" name="answer" type="number" inputmode="decimal" min="{{min}}" max="{{max}}" step="{{step}}" required>{{/scale}}
        {{#choices}}<fieldset><legend>{{prompt}}</legend>{{#options}}<label class="choice"><input type="radio" name="answer" value="{{.}}" required> {{.}}</label>{{/options}}</fieldset>{{/choices}}
        {{#freeText}}<label for="answer-{{anchor}}">{{prompt}}</label><textarea id="answer-{{anchor}}" name="answer" required></textarea>{{/freeText}}
        {{#typed}}<label for="answer-{{anchor}}">{{prompt}}</label><input id="answer-{{anchor}}" name="answer" inputmode="{{inputMode}}" required>{{/typed}}
        <button class="primary" type="submit" name="action" value="answer">Save answer<span class="visually-hidden">: {{title}}</span></button>
        </form>
        {{/answer}}
        </li>
        {{/events}}
        </ol>
        {{/hasEvents}}
        {{^events}}<p>Nothing is planned for this day.</p>{{/events}}
        </section>
        """
}
