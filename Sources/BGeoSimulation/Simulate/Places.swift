import BGeoForensics
/// Where the simulated fleet drives (around Warsaw), and the long route of the teleport drive.
enum Places {
    static let home = GeoPoint(52.2440, 20.9860)
    static let depot = GeoPoint(52.1862, 21.0563)
    static let customerNorth = GeoPoint(52.2925, 21.1052)
    static let customerSouth = GeoPoint(52.1580, 20.9660)
    static let marki = GeoPoint(52.3260, 21.1050)
    static let radzymin = GeoPoint(52.4150, 21.1840)

    static let homeToDepot = [home, GeoPoint(52.2330, 21.0010), GeoPoint(52.2120, 21.0220), GeoPoint(52.1960, 21.0420), depot]
    static let depotToNorth = [depot, GeoPoint(52.2050, 21.0800), GeoPoint(52.2400, 21.0950), GeoPoint(52.2700, 21.1010), customerNorth]
    static let northToSouth = [customerNorth, GeoPoint(52.2800, 21.0400), GeoPoint(52.2450, 20.9500), GeoPoint(52.2000, 20.9300),
                               GeoPoint(52.1700, 20.9500), customerSouth]
    static let southToDepot = [customerSouth, GeoPoint(52.1640, 20.9950), GeoPoint(52.1750, 21.0300), depot]
    static let depotToHome = homeToDepot.reversed().map { $0 }
    static let depotToRadzymin = [depot, GeoPoint(52.2050, 21.0800), GeoPoint(52.2600, 21.0700), marki, GeoPoint(52.3700, 21.1400), radzymin]
    static let radzyminOnward = [radzymin, GeoPoint(52.4600, 21.2300), GeoPoint(52.5050, 21.2600)]

    /// Warsaw → Łowicz → Łódź → Piotrków Trybunalski → Bełchatów, about 195 km.
    static let longDrive = [GeoPoint(52.2297, 21.0122), GeoPoint(52.2100, 20.8500), GeoPoint(52.1990, 20.6170),
                            GeoPoint(52.2290, 20.2380), GeoPoint(52.1066, 19.9447), GeoPoint(51.9000, 19.6000),
                            GeoPoint(51.7592, 19.4560), GeoPoint(51.6060, 19.5300), GeoPoint(51.4052, 19.7030),
                            GeoPoint(51.3688, 19.3564)]
}
