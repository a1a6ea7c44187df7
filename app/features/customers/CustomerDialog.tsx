import {
  CUSTOMER_STATUSES,
  CustomerFieldsSchema,
  KYC_LABELS,
  KYC_STATES,
  joinTags,
  splitTags,
  type Customer,
  type CustomerOwner,
} from "@core/schemas/customers";
import { useState, type FormEvent } from "react";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select, type SelectOption } from "~/ui/Select";
import { CountryInput } from "./CountryInput";
import { statusLabel } from "./CustomerBadges";
import { customersApi, NO_OWNER, ownerLabel, useCustomerOwners, type CustomerInput } from "./customersApi";

interface Form {
  kind: "person" | "company";
  name: string;
  email: string;
  phone: string;
  country: string;
  status: Customer["status"];
  kyc: Customer["kyc"];
  tags: string;
  /** A member's sub, or NO_OWNER. */
  owner: string;
}

const EMPTY: Form = { kind: "person", name: "", email: "", phone: "", country: "", status: "lead", kyc: "notStarted", tags: "", owner: NO_OWNER };
const formOf = (c: Customer): Form => ({
  kind: c.kind,
  name: c.name,
  email: c.email,
  phone: c.phone,
  country: c.country,
  status: c.status,
  kyc: c.kyc,
  tags: joinTags(c.tags),
  owner: c.ownerSub ?? NO_OWNER,
});

/**
 * Create a customer, or edit one (with the version it was read at: someone else's change since
 * is reported, not overwritten). Fields are checked with the API's own schema as the person
 * types; the API's answer (e.g. a conflict) shows above the buttons.
 */
export function CustomerDialog({
  open,
  onOpenChange,
  customer,
  onSaved,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  customer?: Customer;
  onSaved: (c: Customer) => void;
}) {
  const [form, setForm] = useState<Form>(customer ? formOf(customer) : EMPTY);
  const [touched, setTouched] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const owners = useCustomerOwners();
  const { owner, ...fields } = form;
  const input: CustomerInput = {
    ...fields,
    ownerSub: owner === NO_OWNER ? null : owner,
    tags: splitTags(form.tags),
  };
  const parsed = CustomerFieldsSchema.safeParse(input);
  const errors: Partial<Record<keyof Form, string>> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) errors[String(issue.path[0]) as keyof Form] ??= issue.message;
  const show = (k: keyof Form) => (touched ? errors[k] : undefined);
  const set = (k: keyof Form) => (value: string) => setForm((f) => ({ ...f, [k]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!parsed.success) return;
    setSaving(true);
    setFailure(null);
    try {
      const saved = customer ? await customersApi.update(customer.id, { ...input, version: customer.version }) : await customersApi.create(input);
      onSaved(saved);
      onOpenChange(false);
    } catch (err) {
      setFailure(err instanceof ApiError || err instanceof Error ? err.message : "The customer could not be saved.");
    } finally {
      setSaving(false);
    }
  }

  return (
    <DialogRoot
      open={open}
      onOpenChange={(next) => {
        if (next) {
          setForm(customer ? formOf(customer) : EMPTY);
          setTouched(false);
          setFailure(null);
        }
        onOpenChange(next);
      }}
    >
      <DialogContent title={customer ? `Edit ${customer.name}` : "New customer"} className="max-w-xl">
        <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-2">
          <Field label="Kind">
            <Select
              value={form.kind}
              onValueChange={set("kind")}
              options={[
                { value: "person", label: "Person" },
                { value: "company", label: "Company" },
              ]}
            />
          </Field>
          <Field label="Name" error={show("name")}>
            <Input value={form.name} onChange={(e) => set("name")(e.target.value)} autoComplete="off" required />
          </Field>
          <Field label="Email" error={show("email")}>
            <Input type="email" value={form.email} onChange={(e) => set("email")(e.target.value)} autoComplete="off" />
          </Field>
          <Field label="Phone" error={show("phone")}>
            <Input type="tel" value={form.phone} onChange={(e) => set("phone")(e.target.value)} autoComplete="off" />
          </Field>
          <Field label="Country" description="Type part of its name or its code, then pick it" error={show("country")}>
            <CountryInput value={form.country} onValueChange={set("country")} />
          </Field>
          <Field label="Status">
            <Select value={form.status} onValueChange={set("status")} options={CUSTOMER_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))} />
          </Field>
          <Field label="KYC">
            <Select value={form.kyc} onValueChange={set("kyc")} options={KYC_STATES.map((s) => ({ value: s, label: KYC_LABELS[s] }))} />
          </Field>
          <Field label="Tags" description={'Separated by ";" as in the CSV file (a comma works too)'} error={show("tags")}>
            <Input value={form.tags} onChange={(e) => set("tags")(e.target.value)} autoComplete="off" />
          </Field>
          <Field label="Owner" description="The member who looks after this customer">
            <Select value={form.owner} onValueChange={set("owner")} options={ownerOptions(owners.data, customer)} />
          </Field>
          <div className="sm:col-span-2">
            <FormAlert message={failure} />
          </div>
          <div className="flex justify-end gap-2 sm:col-span-2">
            <Button type="button" variant="secondary" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" loading={saving}>
              {customer ? "Save" : "Create customer"}
            </Button>
          </div>
        </form>
      </DialogContent>
    </DialogRoot>
  );
}

/** Nobody, then each member; a current owner who has left the organization keeps an entry. */
function ownerOptions(owners: readonly CustomerOwner[] | undefined, customer: Customer | undefined): SelectOption[] {
  const options: SelectOption[] = [{ value: NO_OWNER, label: "Nobody" }, ...(owners ?? []).map((o) => ({ value: o.sub, label: ownerLabel(o) }))];
  const current = customer?.ownerSub;
  if (current && !options.some((o) => o.value === current)) options.push({ value: current, label: customer.ownerName ?? current });
  return options;
}
