import { api } from "~/api";
import type { OrganizationProfile, OrganizationProfileBody } from "@core/schemas/organization";

export type { OrganizationProfile, OrganizationProfileBody } from "@core/schemas/organization";

/** The current organization's profile (GET/PATCH /api/organization); the form shows refusals inline. */
export const organizationProfileApi = {
  get: (signal?: AbortSignal) => api.get<OrganizationProfile>("/api/organization", { signal }),
  save: (body: OrganizationProfileBody) => api.patch<OrganizationProfile>("/api/organization", body, { silent: true }),
};

export const organizationProfileKey = (organizationId: string | null) => ["organizationProfile", organizationId] as const;
