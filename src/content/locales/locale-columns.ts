// A locale's columns as GET /v1/locales lists it: one list for every read of a whole locale (an event's
// snapshot, change-log's locale.* data; an export's locale lines, src/transfer/export/).
export const LOCALE_COLUMNS = {
  id: true,
  code: true,
  name: true,
  isDefault: true,
  fallback: true,
  createdAt: true,
  updatedAt: true,
} as const;
