import CareHub
import Foundation
import PostgresNIO
import TestSupport
import Testing

/// libpq's multi-host address: a primary and its replicas, in the order the hub probes them.
extension HubDatabaseTests {
    @Test func aHostListNamesEveryServerInOrderWithItsOwnPassword() throws {
        let scratch = try ScratchDirectory("carebridge-pgpass-")
        let file = scratch.path("pgpass")
        try Data("db1.example:5432:hub:hub:one\ndb2.example:5433:hub:hub:two\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let database = try HubDatabase(
            url: "postgres://hub@db1.example,db2.example:5433,[fd00::7]:6432/hub?target_session_attrs=primary",
            environment: ["PGPASSFILE": file]
        )
        #expect(
            database.servers == [
                .init(host: "db1.example", port: 5432), .init(host: "db2.example", port: 5433),
                .init(host: "fd00::7", port: 6432),
            ]
        )
        #expect(database.sessionTarget == .primary)
        #expect(database.database == "hub" && database.username == "hub")
        #expect(database.configuration(of: database.servers[0]).password == "one")
        #expect(database.configuration(of: database.servers[1]).password == "two")
        #expect(database.configuration(of: database.servers[2]).password == nil)
        #expect(database.description == "postgres://hub@db1.example:5432,db2.example:5433,[fd00::7]:6432/hub")
    }

    @Test func oneHostIsReadAsBeforeAndTheHubWantsAWritableServerByDefault() throws {
        let database = try HubDatabase(url: "postgresql://hub@db.example:6543/hub?sslmode=disable")
        #expect(database.servers == [.init(host: "db.example", port: 6543)])
        #expect(database.host == "db.example" && database.port == 6543)
        #expect(database.sessionTarget == .readWrite)
        #expect(try HubDatabase(url: "postgres:///hub").servers == [.init(host: "localhost", port: 5432)])
    }

    @Test(
        "a bad host list is refused, naming the part",
        arguments: [
            ("postgres://hub@db1,,db2/hub", "host 2 '' of 'db1,,db2': the host name is empty"),
            ("postgres://hub@db1,db2:54x/hub", "host 2 'db2:54x' of 'db1,db2:54x': port '54x' is not a number"),
            ("postgres://hub@db1:0/hub", "the database host 'db1:0': port '0' is not a number from 1 to 65535"),
            ("postgres://hub@db1,:5433/hub", "host 2 ':5433' of 'db1,:5433': the host name is empty"),
            ("postgres://hub@db1,[fd00::1/hub", "host 2 '[fd00::1' of 'db1,[fd00::1': an IPv6 address without"),
            ("postgres://hub@db1:5432,db1/hub", "host 2 'db1' of 'db1:5432,db1': db1:5432 is named twice"),
            ("postgres://hub@db1,db2/hub?target_session_attrs=standby", "target_session_attrs 'standby' is not"),
        ]
    )
    func aBadHostListIsRefusedNamingThePart(url: String, message: String) {
        do throws(HubError) {
            _ = try HubDatabase(url: url)
            Issue.record("\(url) was taken")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func aPasswordInAMultiHostAddressIsRefusedWithoutShowingIt() {
        do throws(HubError) {
            _ = try HubDatabase(url: "postgres://hub:s3cret@db1:5432,db2:5433/hub")
            Issue.record("a password in the address was taken")
        } catch {
            #expect(error.code == .configuration)
            #expect(!error.description.contains("s3cret"))
        }
    }
}
