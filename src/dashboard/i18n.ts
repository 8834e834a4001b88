/**
 * The dashboard speaks Korean by default and English when the `lang` cookie says `en`. Each page may keep its own
 * catalog with `catalog(ko, en)`; the English table must carry every Korean key (the compiler checks).
 */
export type Lang = 'ko' | 'en';
export const LANGS: readonly Lang[] = ['ko', 'en'];

export function parseLang(v: unknown): Lang {
  return v === 'en' ? 'en' : 'ko';
}

type Vars = Record<string, string | number>;

function fill(s: string, vars?: Vars): string {
  return vars ? s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : s;
}

export function catalog<K extends string>(ko: Record<K, string>, en: Record<K, string>): (lang: Lang, key: K, vars?: Vars) => string {
  return (lang, key, vars) => fill((lang === 'en' ? en : ko)[key], vars);
}

/** The frame's own words (layout, sign-in, errors, home, audit). */
export const frameText = catalog(
  {
    'app.title': '판매자 대시보드',
    'nav.home': '홈',
    'nav.developers': '개발자',
    'nav.settings': '설정',
    'nav.audit': '감사 로그',
    'nav.menu': '메뉴',
    'mode.test': '테스트',
    'mode.live': '라이브',
    'mode.label': '모드',
    'mode.switchToLive': '라이브 모드로 전환',
    'mode.switchToTest': '테스트 모드로 전환',
    'mode.testBanner': '테스트 모드입니다. 실제 결제·환불이 아니며, 보이는 데이터는 모두 테스트 데이터입니다.',
    'lang.switch': 'English',
    'signout': '로그아웃',
    'signin.title': '판매자 대시보드 로그인',
    'signin.email': '이메일',
    'signin.password': '비밀번호',
    'signin.store': '상점 ID (여러 상점에 속한 경우)',
    'signin.submit': '로그인',
    'signin.failed': '이메일 또는 비밀번호가 올바르지 않습니다.',
    'signin.throttled': '로그인 시도가 너무 많습니다. {minutes}분 뒤에 다시 시도해 주세요.',
    'signin.hint': '계정이 없으면 상점 소유자나 운영자에게 요청하세요.',
    'signin.passkey': '패스키로 로그인',
    'account.link': '내 계정',
    'forbidden.title': '접근 권한이 없습니다',
    'forbidden.message': '현재 역할({role})로는 이 페이지를 열거나 이 작업을 할 수 없습니다. 상점 소유자에게 권한을 요청해 주세요.',
    'csrf.title': '요청을 확인할 수 없습니다',
    'csrf.message': '보안 토큰이 없거나 만료되었습니다. 페이지를 새로 고친 뒤 다시 시도해 주세요.',
    'error.title': '요청을 처리할 수 없습니다',
    'error.server': '일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.',
    'notFound.title': '페이지를 찾을 수 없습니다',
    'back.home': '홈으로',
    'role.owner': '소유자',
    'role.admin': '관리자',
    'role.support': '고객 지원',
    'role.developer': '개발자',
    'audit.title': '감사 로그',
    'audit.when': '시각',
    'audit.who': '누가',
    'audit.action': '작업',
    'audit.target': '대상',
    'audit.from': '접속 위치',
    'audit.filter': '필터',
    'audit.filterAction': '작업',
    'audit.filterActor': '사람 (이름 또는 ID)',
    'audit.apply': '적용',
    'audit.empty': '기록된 작업이 없습니다.',
    'audit.ownerToken': '콘솔 API (소유자 토큰)',
    'audit.operator': '운영자 CLI',
    'page.prev': '이전',
    'page.next': '다음',
    'page.of': '{page} / {pages} 페이지 · 총 {total}건',
  },
  {
    'app.title': 'Seller dashboard',
    'nav.home': 'Home',
    'nav.developers': 'Developers',
    'nav.settings': 'Settings',
    'nav.audit': 'Audit log',
    'nav.menu': 'Menu',
    'mode.test': 'Test',
    'mode.live': 'Live',
    'mode.label': 'Mode',
    'mode.switchToLive': 'Switch to live mode',
    'mode.switchToTest': 'Switch to test mode',
    'mode.testBanner': 'Test mode: no real payments or refunds; all data shown is test data.',
    'lang.switch': '한국어',
    'signout': 'Sign out',
    'signin.title': 'Sign in to the seller dashboard',
    'signin.email': 'E-mail',
    'signin.password': 'Password',
    'signin.store': 'Store ID (if you belong to several stores)',
    'signin.submit': 'Sign in',
    'signin.failed': 'The e-mail or password is not correct.',
    'signin.throttled': 'Too many sign-in attempts. Try again in {minutes} minutes.',
    'signin.hint': 'No account yet? Ask the store owner or your operator.',
    'signin.passkey': 'Sign in with a passkey',
    'account.link': 'My account',
    'forbidden.title': 'You do not have access',
    'forbidden.message': 'Your role ({role}) cannot open this page or take this action. Ask the store owner for access.',
    'csrf.title': 'The request could not be verified',
    'csrf.message': 'The security token is missing or expired. Reload the page and try again.',
    'error.title': 'The request could not be processed',
    'error.server': 'Something went wrong. Please try again shortly.',
    'notFound.title': 'Page not found',
    'back.home': 'Home',
    'role.owner': 'Owner',
    'role.admin': 'Admin',
    'role.support': 'Support',
    'role.developer': 'Developer',
    'audit.title': 'Audit log',
    'audit.when': 'When',
    'audit.who': 'Who',
    'audit.action': 'Action',
    'audit.target': 'Target',
    'audit.from': 'From',
    'audit.filter': 'Filter',
    'audit.filterAction': 'Action',
    'audit.filterActor': 'Person (name or id)',
    'audit.apply': 'Apply',
    'audit.empty': 'No actions recorded.',
    'audit.ownerToken': 'Console API (owner token)',
    'audit.operator': 'Operator CLI',
    'page.prev': 'Previous',
    'page.next': 'Next',
    'page.of': 'Page {page} of {pages} · {total} in all',
  },
);
