#!/usr/bin/env python3
"""Where a real-bluetoothd guest boot's time went, from its results share (not a test; figures for docs).

    Tests/RealBlueZTests/Harness/timings.py RESULTS-DIRECTORY...

Reads what scenarios.sh leaves in each results directory (timings.txt, NAME/timings.txt, NAME/scenario.log,
NAME/bridge.log) and the console GuestRun.swift saves (console.txt), and prints per boot: the kernel's boot, the
stack's start (btvirt, bluetoothd), and per scenario: the simulator's start until it advertises, the bridge's start
until it discovers, each wait of the scenario, the bridge's stop after SIGTERM, stopping the simulators, exporting
the store and removing the devices; then the sums of each phase over the boot.
"""
import datetime
import os
import re
import sys

STEP = re.compile(r'^\[guest ([0-9.]+)\] (ok|FAILED): (.*)$')
# swift-log's stream handler: 2026-11-29T13:40:21+0000 info carebridge : ...
STAMP = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}) ')


def marks(path):
    """key -> float of a `key value` file; a key seen twice keeps its first value (a scenario run again keeps its own
    directory)."""
    result = {}
    try:
        with open(path) as handle:
            for line in handle:
                fields = line.split()
                if len(fields) == 2 and fields[0] not in result:
                    try:
                        result[fields[0]] = float(fields[1])
                    except ValueError:
                        pass
    except OSError:
        pass
    return result


def bridge_ready(directory, offset):
    """Uptime at which the bridge logged `adapter ready, discovering` (wall time to the second), or None."""
    try:
        with open(os.path.join(directory, 'bridge.log'), errors='replace') as handle:
            for line in handle:
                if 'adapter ready, discovering' in line:
                    match = STAMP.match(line)
                    if match:
                        wall = datetime.datetime.strptime(match.group(1), '%Y-%m-%dT%H:%M:%S%z').timestamp()
                        return wall - offset
    except OSError:
        pass
    return None


def steps(directory):
    result = []
    try:
        with open(os.path.join(directory, 'scenario.log'), errors='replace') as handle:
            for line in handle:
                match = STEP.match(line.strip())
                if match:
                    result.append((float(match.group(1)), match.group(2), match.group(3)))
    except OSError:
        pass
    return result


def report(results):
    print(f'== {results}')
    boot = marks(os.path.join(results, 'timings.txt'))
    offset = boot.get('uptime-epoch')
    try:
        console = open(os.path.join(results, 'console.txt'), errors='replace').read()
    except OSError:
        console = ''
    for match in re.finditer(r'--- boot: (.*): ([0-9.]+) s', console):
        print(f'host: guest boot of {len(match.group(1).split())} scenarios took {float(match.group(2)):.0f} s')
    up = re.search(r'guest: up at ([0-9.]+) s', console)
    exited = re.search(r'guest: exited \d+ at ([0-9.]+) s', console)
    if up:
        print(f'kernel boot to the guest script: {float(up.group(1)):.1f} s')
    if 'stack-up' in boot:
        print(f'stack up (btvirt, bluetoothd, both controllers powered) at {boot["stack-up"]:.1f} s')
    if exited:
        print(f'guest script done at {float(exited.group(1)):.1f} s')
    names = sorted(
        (name for name in os.listdir(results) if os.path.isfile(os.path.join(results, name, 'timings.txt'))),
        key=lambda name: marks(os.path.join(results, name, 'timings.txt')).get('start', 0),
    )
    totals = {}
    header = f'{"scenario":22} {"total":>6} {"sim":>5} {"bridge":>6} {"waits":>6} {"stop":>5} {"sims":>5} {"export":>6} {"reset":>5}'
    print(header)
    for name in names:
        directory = os.path.join(results, name)
        mark = marks(os.path.join(directory, 'timings.txt'))
        start = mark.get('start')
        if start is None:
            continue
        scenario_steps = steps(directory)
        advertised = next((t for t, _, what in scenario_steps if 'advertises' in what), None)
        started = mark.get('bridge-started')
        ready = bridge_ready(directory, offset) if offset is not None else None
        row = {
            'total': mark.get('end', mark.get('exported', start)) - start,
            'sim': (advertised - start) if advertised is not None and (started is None or advertised <= started) else None,
            'bridge': (ready - started) if ready is not None and started is not None else None,
            'stop': mark.get('sigterm-to-exit'),
            'sims': mark['simulators-stopped'] - mark['scenario-done'] if 'simulators-stopped' in mark else None,
            'export': mark['exported'] - mark['simulators-stopped'] if 'exported' in mark else None,
            'reset': mark['end'] - mark['exported'] if 'end' in mark and 'exported' in mark else None,
        }
        known = sum(v for k, v in row.items() if k != 'total' and v is not None)
        row['waits'] = row['total'] - known
        for key, value in row.items():
            if value is not None:
                totals[key] = totals.get(key, 0) + value

        def cell(key, width):
            value = row[key]
            return f'{value:>{width}.1f}' if value is not None else ' ' * (width - 1) + '-'

        print(
            f'{name:22} {cell("total", 6)} {cell("sim", 5)} {cell("bridge", 6)} {cell("waits", 6)} '
            f'{cell("stop", 5)} {cell("sims", 5)} {cell("export", 6)} {cell("reset", 5)}'
        )
        previous = start
        for at, verdict, what in scenario_steps:
            print(f'    {at - previous:7.1f}  {verdict}: {what}')
            previous = at
    print(
        f'{"sum":22} '
        + ' '.join(
            f'{totals.get(key, 0):>{width}.0f}'
            for key, width in (('total', 6), ('sim', 5), ('bridge', 6), ('waits', 6), ('stop', 5), ('sims', 5),
                               ('export', 6), ('reset', 5))
        )
    )
    print(
        'total: start to devices removed; sim: simulator started until it advertised (when before the bridge); bridge: '
        'bridge started until it discovered; waits: the rest (the scenario\'s own waits); stop: SIGTERM to exit; '
        'sims: stopping the simulators; export: samples and events to JSON; reset: removing every device'
    )


for argument in sys.argv[1:]:
    report(argument)
