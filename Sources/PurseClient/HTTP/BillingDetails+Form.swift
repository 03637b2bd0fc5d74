import PurseModels

extension BillingDetails {
    /// `billing_details[...]` with only the fields that are set.
    var form: FormValue {
        var form = FormValue.fields([])
        form.set("name", name.map(FormValue.string))
        form.set("email", email.map(FormValue.string))
        form.set("phone", phone.map(FormValue.string))
        var address = FormValue.fields([])
        address.set("line1", self.address.line1.map(FormValue.string))
        address.set("line2", self.address.line2.map(FormValue.string))
        address.set("city", self.address.city.map(FormValue.string))
        address.set("state", self.address.state.map(FormValue.string))
        address.set("postal_code", self.address.postalCode.map(FormValue.string))
        address.set("country", self.address.country.map(FormValue.string))
        form.set("address", address.nonEmpty)
        return form
    }
}
