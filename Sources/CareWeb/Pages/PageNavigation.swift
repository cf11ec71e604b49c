/// Which links the page header offers a signed-in user: a bridge's care app (patients, settings) or the hub's
/// dashboard (the overview only).
public enum PageNavigation: Sendable {
    case bridge
    case hub
}
