/// A PostgreSQL type OID, with names for the types the layer reads and binds.
public struct PostgresType: Sendable, Hashable, CustomStringConvertible {
    public let oid: UInt32

    public init(oid: UInt32) { self.oid = oid }

    public static let bool = PostgresType(oid: 16)
    public static let bytea = PostgresType(oid: 17)
    public static let name = PostgresType(oid: 19)
    public static let int8 = PostgresType(oid: 20)
    public static let int2 = PostgresType(oid: 21)
    public static let int4 = PostgresType(oid: 23)
    public static let text = PostgresType(oid: 25)
    public static let oidType = PostgresType(oid: 26)
    public static let json = PostgresType(oid: 114)
    public static let float4 = PostgresType(oid: 700)
    public static let float8 = PostgresType(oid: 701)
    public static let bpchar = PostgresType(oid: 1042)
    public static let varchar = PostgresType(oid: 1043)
    public static let timestamp = PostgresType(oid: 1114)
    public static let timestamptz = PostgresType(oid: 1184)
    public static let jsonb = PostgresType(oid: 3802)
    public static let textArray = PostgresType(oid: 1009)
    public static let varcharArray = PostgresType(oid: 1015)
    public static let void = PostgresType(oid: 2278)

    var isTextLike: Bool {
        self == .text || self == .varchar || self == .name || self == .bpchar
    }

    public var description: String { "oid \(oid)" }
}
