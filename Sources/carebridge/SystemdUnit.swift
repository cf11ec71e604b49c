import ArgumentParser

struct SystemdUnit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "systemd-unit",
        abstract: "Print a ready-to-use systemd unit for `carebridge run`.",
        discussion: """
            Install it with:
              carebridge systemd-unit > /etc/systemd/system/carebridge.service
              systemctl daemon-reload && systemctl enable --now carebridge

            The unit runs as the user `carebridge` (in group `bluetooth`, which Debian's D-Bus policy for \
            org.bluez admits), Type=notify with a watchdog, and restarts the bridge when it exits non-zero (for \
            example 75 after a wedged scanner). See the README section "Running on a Raspberry Pi".
            """
    )

    @Option(name: .long, help: ArgumentHelp("Path of the installed executable.", valueName: "path"))
    var executable = "/usr/local/bin/carebridge"

    @Option(name: .long, help: ArgumentHelp("Extra arguments for `carebridge run`.", valueName: "args"))
    var arguments = "--store /var/lib/carebridge/store.sqlite"

    func run() {
        print(Self.unit(executable: executable, arguments: arguments))
    }

    static func unit(executable: String, arguments: String) -> String {
        """
        [Unit]
        Description=CareBridge: Bluetooth LE health devices into the care plan
        Documentation=https://github.com/carebridge/carebridge#running-on-a-raspberry-pi
        Requires=bluetooth.service
        After=bluetooth.service

        [Service]
        Type=notify
        NotifyAccess=main
        ExecStart=\(executable) run \(arguments)
        User=carebridge
        Group=carebridge
        SupplementaryGroups=bluetooth
        StateDirectory=carebridge
        StateDirectoryMode=0700
        Environment=CAREBRIDGE_LOG_LEVEL=info
        WatchdogSec=60
        Restart=on-failure
        RestartSec=10
        TimeoutStopSec=20
        NoNewPrivileges=yes
        ProtectSystem=strict
        ProtectHome=yes
        PrivateTmp=yes

        [Install]
        WantedBy=multi-user.target
        """
    }
}
