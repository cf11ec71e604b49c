public import BridgeCore
public import DeviceSessions

/// The loaded device profiles: decides which profile claims a device (``ConnectionPolicy``).
public struct DeviceCatalog: Sendable, ConnectionPolicy {
    /// Profiles in load order (built-in first, then user directories; a later profile with the same id
    /// replaces an earlier one).
    public private(set) var profiles: [DeviceProfile]

    public init(profiles: [DeviceProfile]) {
        var ordered: [DeviceProfile] = []
        for profile in profiles {
            if let index = ordered.firstIndex(where: { $0.id == profile.id }) {
                ordered[index] = profile
            } else {
                ordered.append(profile)
            }
        }
        self.profiles = ordered
    }

    /// Every profile whose match holds, highest priority first (ties by id, so the order is stable).
    public func candidates(for advertisement: Advertisement) -> [DeviceProfile] {
        profiles.filter { $0.match.matches(advertisement) }
            .sorted { ($0.match.priority, $1.id) > ($1.match.priority, $0.id) }
    }

    /// The profile that claims the device: the highest-priority match.
    ///
    /// When two matches share the highest priority the one with the smaller id wins; the collision
    /// catalogue test keeps the shipped profiles free of such ties.
    public func profile(for advertisement: Advertisement) -> DeviceProfile? {
        candidates(for: advertisement).first
    }

    /// The profile with this id.
    public func profile(id: String) -> DeviceProfile? {
        profiles.first { $0.id == id }
    }

    // MARK: - ConnectionPolicy

    public func plan(forDevice address: String, advertisement: Advertisement) -> ConnectionPlan? {
        profile(for: advertisement)?.connectionPlan
    }
}
