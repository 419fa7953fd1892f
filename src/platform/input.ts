/**
 * PHP clients send "" for a value they do not have (compatibility.md section 3): for the optional fields where
 * the interface says so, an empty string is taken as not sent.
 */
export function blankAsAbsent<T>(value: T | '' | undefined): T | undefined {
  return value === '' ? undefined : value;
}
