extension Templates {
    /// Devices: the patient's devices with their last reading, then (for those who may) the unassigned inbox
    /// with one "This was …" button per patient the user sees.
    static let devices = """
        <h1>{{patientName}} <span class="sub">Devices</span></h1>
        {{> patientNav}}
        <section data-live-region aria-labelledby="devices-heading">
        <h2 id="devices-heading">Devices of {{patientName}}</h2>
        {{#hasDevices}}
        <ul class="devices">
        {{#devices}}
        <li class="device">
        <h3>{{name}}</h3>
        <dl>
        {{#address}}<dt>Address or serial</dt><dd>{{address}}</dd>{{/address}}
        <dt>Filed as</dt><dd>{{filed}}</dd>
        <dt>Last reading</dt><dd>{{last}}</dd>
        {{#slot}}<dt>User slot</dt><dd>{{slot}}</dd>{{/slot}}
        <dt>Battery</dt><dd>{{battery}}</dd>
        </dl>
        </li>
        {{/devices}}
        </ul>
        {{/hasDevices}}
        {{^hasDevices}}<p>No device has brought {{patientName}} a reading in the last {{days}} days, and none is registered for them.</p>{{/hasDevices}}
        </section>
        {{#inbox}}
        <section aria-labelledby="inbox-heading" id="inbox">
        <h2 id="inbox-heading">Readings nobody is filed for</h2>
        <p class="text">A device that is not registered, or a shared scale that could not tell who stepped on it. Say whose reading it was: it then completes that person's events.</p>
        {{#hasReadings}}
        <ul class="inbox">
        {{#readings}}
        <li class="inbox-reading" id="inbox-{{id}}">
        <p><strong>{{what}}</strong> <span class="when">{{when}}, from {{source}}</span></p>
        <p class="text">{{reason}}</p>
        {{#notes}}<p class="flag">{{.}}</p>{{/notes}}
        <div class="act">
        {{#patients}}
        <form method="post" action="/patients/{{patientID}}/inbox/{{readingID}}/assign">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">This was {{patientName}}<span class="visually-hidden">: {{what}}, {{when}}</span></button>
        </form>
        {{/patients}}
        </div>
        </li>
        {{/readings}}
        </ul>
        {{/hasReadings}}
        {{^hasReadings}}<p>The inbox is empty.</p>{{/hasReadings}}
        </section>
        {{/inbox}}
        """
}
