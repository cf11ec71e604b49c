import Foundation
import TestSupport
import Testing

/// `store vacuum` on a disk without room for its compaction: a small tmpfs in a private mount namespace
/// (`unshare -m`, as root), filled up to a few hundred kilobytes.
extension StoreRetentionCommandTests {
    /// Whether this machine can mount a tmpfs in a private mount namespace (root with util-linux's unshare); in
    /// CI it must.
    static var mountNamespacesEnabled: Bool {
        (geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"))
            || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test(.enabled(if: mountNamespacesEnabled, "needs root and unshare (a tmpfs in a private mount namespace)"))
    func aVacuumThatCannotFitSaysHowMuchRoomItNeedsAndWhereAndDeletesNothing() async throws {
        let before = try await setUp()
        #expect(before.rate == 1200)
        let mount = directory.appendingPathComponent("small-disk").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let results = directory.appendingPathComponent("results").path
        try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        let executable = CarebridgeProcess.executable.path
        // A 2 MiB disk holding the store and a filler that leaves 200 KiB: room to open the store and write a
        // batch, not for VACUUM's copy. Then the disk grows to 8 MiB and the same command finishes.
        let script = """
            set -e
            mount -t tmpfs -o size=2m tmpfs "$MOUNT"
            cp "$STORE" "$MOUNT/store.sqlite"
            [ ! -e "$STORE-wal" ] || cp "$STORE-wal" "$MOUNT/store.sqlite-wal"
            dd if=/dev/zero of="$MOUNT/filler" bs=4k 2>/dev/null || true
            truncate -s -200K "$MOUNT/filler"
            set +e
            TMPDIR="$MOUNT" "$CAREBRIDGE" store vacuum --yes --store "$MOUNT/store.sqlite" \
                >"$RESULTS/full.out" 2>"$RESULTS/full.err"
            echo $? >"$RESULTS/full.status"
            TMPDIR="$MOUNT" "$CAREBRIDGE" samples --type heartRate --json --store "$MOUNT/store.sqlite" \
                >"$RESULTS/kept.out" 2>&1
            mount -o remount,size=8m "$MOUNT"
            TMPDIR="$MOUNT" "$CAREBRIDGE" store vacuum --yes --json --store "$MOUNT/store.sqlite" \
                >"$RESULTS/room.out" 2>"$RESULTS/room.err"
            echo $? >"$RESULTS/room.status"
            """
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            ["-m", "--propagation", "private", "sh", "-c", script],
            environment: [
                "MOUNT": mount, "STORE": storePath, "RESULTS": results, "CAREBRIDGE": executable,
                "TZ": "Europe/Berlin",
            ]
        )
        #expect(output.status == 0, "\(output.standardError)")
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: results + "/" + name, encoding: .utf8)
        }
        // Refused before anything is deleted, naming the directory and the room it needs.
        #expect(try read("full.status").trimmingCharacters(in: .whitespacesAndNewlines) == "74")
        let refusal = try read("full.err")
        #expect(refusal.contains("compacting the store needs about"), "\(refusal)")
        #expect(refusal.contains("free in \(mount) (there are "), "\(refusal)")
        #expect(refusal.contains("nothing was changed"), "\(refusal)")
        let kept = try JSONSerialization.jsonObject(with: Data(try read("kept.out").utf8)) as? [[String: Any]]
        #expect(kept?.count == 1200)
        // With room, the same command aggregates, deletes and compacts.
        let roomError = try read("room.err")
        #expect(try read("room.status").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(roomError)")
        let done = try JSONSerialization.jsonObject(with: Data(try read("room.out").utf8)) as? [String: Any]
        #expect(done?["deleted"] as? Int == 1200)
        let sizes = (done?["fileBytesBefore"] as? Int, done?["fileBytesAfter"] as? Int)
        #expect(sizes.1 ?? .max < sizes.0 ?? 0, "\(String(describing: done))")
    }
}
