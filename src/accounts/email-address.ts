/**
 * Whether an account may have this address (already trimmed): the dot-atom form of RFC 5322 that
 * mail servers deliver to, with any non-ASCII letter allowed on both sides (RFC 6531 addresses,
 * and domains in Unicode). Quoted local parts and address literals (`a@[127.0.0.1]`) are refused:
 * no one signs up with them, and the mail library refuses some of them. What this refuses is what
 * the verification mail could never reach, so no account is made that its link cannot verify.
 */
export function isEmailAddress(email: string): boolean {
  if (email.length > 254) return false;
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@')) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  // No 64-character bound on the local part (RFC 5321's): a 254-character address with a long
  // local part is taken (docs/api-decisions.md, "Dashboard and accounts audit"), and delivered.
  if (!local.split('.').every((part) => LOCAL_PART.test(part))) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label));
}

// RFC 5322 atext, plus anything beyond ASCII but spaces and controls.
const LOCAL_PART = /^(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|(?![\s\p{Cc}])\P{ASCII})+$/u;
// Letters, digits and hyphens, not at either end; 63 characters at most.
const DOMAIN_LABEL = /^(?!-)(?:[A-Za-z0-9-]|(?![\s\p{Cc}])\P{ASCII}){1,63}(?<!-)$/u;
