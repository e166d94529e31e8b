import { isIsoDate } from "/work/main/src/content/custom-field-values.ts";
for (const v of ["2024-02-29","2023-02-29","2024-02-31","2024-02-31T10:00:00Z","2024-01-31T10:00:00+02:00","2024-01-31T25:00:00Z","2024-13-01","2024-01-01T10:00","0099-01-01","2024-01-01T10:61:00Z","2024-1-1","tomorrow"]) console.log(v, isIsoDate(v));
