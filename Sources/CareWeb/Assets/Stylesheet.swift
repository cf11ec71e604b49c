/// The app's one stylesheet: readable at 360 px and at 200 % zoom, touch targets of at least 44 px, colours with
/// WCAG AA contrast on white, a visible focus ring.
enum Stylesheet {
    static let text = """
        :root { --ink: #1b1f24; --muted: #4a5460; --line: #c9d1d9; --accent: #0b5cad; --done: #1a6e32;
          --late: #8a4b00; --bad: #a4161a; --bg: #ffffff; --soft: #f3f6f9; font-size: 100%; }
        * { box-sizing: border-box; }
        body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
          background: var(--bg); line-height: 1.5; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem;
          min-height: 44px; box-sizing: border-box; z-index: 1; }
        .skip:focus { left: .5rem; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
          white-space: nowrap; }
        .bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 1rem;
          border-bottom: 1px solid var(--line); background: var(--soft); }
        .brand { font-weight: 700; text-decoration: none; color: var(--ink); }
        .bar nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
        .bar nav a, .brand { display: inline-block; min-height: 44px; line-height: 44px; }
        .signout { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
        main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.5rem; margin: .5rem 0; }
        h1 .sub, .sub { display: block; font-size: 1rem; font-weight: 400; color: var(--muted); }
        h2 { font-size: 1.125rem; margin: 0; }
        button, .days a { min-height: 44px; min-width: 44px; padding: .5rem 1rem; font: inherit; border-radius: .5rem;
          border: 1px solid var(--muted); background: var(--bg); color: var(--ink); cursor: pointer; }
        button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600;
          font-size: 1.125rem; min-width: 8rem; }
        input, textarea { font: inherit; min-height: 44px; padding: .5rem; border: 1px solid var(--muted);
          border-radius: .375rem; width: 100%; max-width: 24rem; }
        input[type=radio] { width: auto; min-height: 0; margin-right: .5rem; }
        label { display: block; margin: .5rem 0 .25rem; font-weight: 600; }
        label.choice { display: flex; align-items: center; min-height: 44px; font-weight: 400; margin: 0; }
        fieldset { border: 0; padding: 0; margin: .5rem 0; }
        legend { font-weight: 600; }
        details summary { min-height: 44px; line-height: 44px; cursor: pointer; color: var(--accent); }
        .days { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0 1rem; }
        .days a { display: inline-block; text-decoration: none; }
        .error { color: var(--bad); font-weight: 600; border-left: 4px solid var(--bad); padding-left: .75rem; }
        .ring-row { display: flex; align-items: center; gap: 1rem; }
        .ring { width: 4rem; height: 4rem; transform: rotate(-90deg); }
        .ring circle { fill: none; stroke-width: 4; }
        .ring .track { stroke: var(--line); }
        .ring .fill { stroke: var(--done); stroke-linecap: round; }
        .events { list-style: none; padding: 0; margin: 1rem 0; display: grid; gap: .75rem; }
        .event { border: 1px solid var(--line); border-left: 6px solid var(--line); border-radius: .5rem;
          padding: .75rem 1rem; }
        .event.done { border-left-color: var(--done); }
        .event.missed, .event.notdone { border-left-color: var(--late); }
        .event .head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .25rem 1rem; }
        .event .when, .event .text { color: var(--muted); }
        .event .state { font-weight: 600; margin: .25rem 0; }
        .event.done .state { color: var(--done); }
        .event.missed .state, .event.notdone .state { color: var(--late); }
        .flag { color: var(--bad); }
        .notice { padding: .75rem 1rem; border: 1px solid var(--line); border-radius: .5rem; background: var(--soft); }
        .act { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: .5rem 0; }
        .act.answer { display: block; }
        .act.answer button { margin-top: .5rem; }
        .login { display: grid; gap: .25rem; max-width: 24rem; }
        .login button { margin-top: 1rem; }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); }
        th a { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; }
        tr.urgent th { border-left: 6px solid var(--bad); }
        tr.late th { border-left: 6px solid var(--late); }
        .tabs { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: .25rem 0 .75rem; }
        .tabs a { display: inline-block; min-height: 44px; line-height: 44px; }
        .tabs a[aria-current=page] { font-weight: 700; color: var(--ink); text-decoration: none;
          border-bottom: 3px solid var(--accent); }
        .alerts, .contacts, .links { list-style: none; padding: 0; }
        .alert { border-left: 6px solid var(--late); padding: .5rem 1rem; margin: .5rem 0; background: var(--soft); }
        .alert.critical { border-left-color: var(--bad); }
        .contact { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; margin: .5rem 0; }
        .links a { display: inline-block; min-height: 44px; line-height: 44px; }
        figure.chart { margin: 1rem 0; }
        figure.chart svg { width: 100%; height: auto; }
        select { font: inherit; min-height: 44px; padding: .5rem; border: 1px solid var(--muted); border-radius: .375rem;
          background: var(--bg); color: var(--ink); max-width: 100%; }
        .filter { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: .5rem 0 1rem; }
        .filter label.choice { min-height: 44px; }
        .filter input[type=checkbox], .review input[type=checkbox] { width: auto; min-height: 0; margin-right: .5rem; }
        .entry { display: grid; gap: .25rem; max-width: 24rem; }
        .entry button { margin-top: .75rem; }
        table.readings { overflow-wrap: anywhere; }
        table.readings td p { margin: 0 0 .25rem; }
        @media (max-width: 400px) { main { padding: .75rem; } table.readings th, table.readings td { padding: .375rem; } }
        table.readings .type { display: block; font-weight: 400; color: var(--muted); }
        table.readings a { display: inline-flex; align-items: center; min-height: 44px; }
        tr.quarantined th, tr.quarantined td { background: #fdf0f0; }
        tr.quarantined th { border-left: 6px solid var(--bad); }
        tr.flagged th { border-left: 6px solid var(--late); }
        dl.reading, .device dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
        dt { font-weight: 600; }
        dd { margin: 0; overflow-wrap: anywhere; }
        .review { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; margin: 1rem 0; }
        .review.danger { border-color: var(--bad); }
        .review form { display: grid; gap: .25rem; max-width: 24rem; }
        .review button { margin-top: .5rem; }
        button.danger { background: var(--bad); border-color: var(--bad); color: #fff; font-weight: 600; }
        .devices, .inbox { list-style: none; padding: 0; }
        .device, .inbox-reading { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem;
          margin: .5rem 0; }
        .device h3 { font-size: 1rem; margin: 0 0 .25rem; }
        .inbox-reading p { margin: .25rem 0; }
        """
}
