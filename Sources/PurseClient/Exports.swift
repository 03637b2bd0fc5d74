// Apps link the PurseClient product and read the wire models it returns (`PaymentMethod`,
// `CustomerSheetSettings`, ...), so `import PurseClient` brings them along.
@_exported public import PurseModels
