extension Templates {
    /// Settings: the zone the user reads times in, a plain form (the browser's zone is only offered, by the
    /// script, as a suggestion the user still has to save).
    static let settings = """
        <h1>Settings <span class="sub">{{displayName}}</span></h1>
        {{#saved}}<p class="notice" role="status">{{saved}}</p>{{/saved}}
        {{#error}}<p class="error" role="alert" id="zone-error">{{error}}</p>{{/error}}
        <section aria-labelledby="zone-heading">
        <h2 id="zone-heading">Your time zone</h2>
        <p class="text" id="zone-hint">Every time the app shows (dose windows, readings, alerts) is in this zone, with the plan's time beside it when they differ. The days stay each patient's plan days in {{planZone}}.</p>
        <form method="post" action="/settings" class="entry">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="zone">Show times in</label>
        <select id="zone" name="zone" aria-describedby="zone-hint{{#error}} zone-error{{/error}}">
        <option value=""{{#isPlanZone}} selected{{/isPlanZone}}>The bridge's zone ({{planZone}})</option>
        {{#zones}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/zones}}
        </select>
        <p class="text" data-zone-suggest hidden><span></span> <button type="button">Choose it</button></p>
        <button class="primary" type="submit">Save</button>
        </form>
        </section>
        """
}
