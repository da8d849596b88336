import type { MarketType, Outcome } from '../pricing/index.ts';

/** What happens to a demo market during the simulated month (days are relative to now). */
export type DemoFate =
  | { readonly kind: 'open' }
  | { readonly kind: 'pending' }
  | { readonly kind: 'resolve'; readonly outcome: Outcome; readonly day: number }
  | { readonly kind: 'cancel'; readonly day: number };

export interface DemoMarket {
  readonly title: string;
  readonly description: string;
  readonly type: MarketType;
  readonly labels?: Record<string, string>;
  /** Opening prices; default even. */
  readonly opening?: Record<string, number>;
  /** Where traders believe the market should go: probability of yes (binary) or [yes, no, draw]. */
  readonly belief: number | readonly [number, number, number];
  /** End of trading, in days from now (settled markets end before they settle). */
  readonly endDay: number;
  /** When the market opened, in days from now (default: the start of the simulated month). */
  readonly openDay?: number;
  readonly fate: DemoFate;
  /** Relative share of the month's trades. */
  readonly weight: number;
  readonly image: string;
}

export interface DemoEvent {
  readonly title: string;
  readonly description: string;
  readonly category: string;
  readonly endDay: number | null;
  readonly featured?: boolean;
  readonly markets: readonly DemoMarket[];
}

export interface DemoStandalone extends DemoMarket {
  readonly category: string;
  readonly featured?: boolean;
}

const open = { kind: 'open' } as const;

export const DEMO_EVENTS: readonly DemoEvent[] = [
  {
    title: 'Bitcoin in 2027',
    description: 'Where the largest crypto asset trades over the coming year.',
    category: 'crypto',
    endDay: 210,
    markets: [
      {
        title: 'Will Bitcoin trade above $150,000 before July 2027?',
        description: 'Resolves yes if the BTC/USD spot price on a major exchange prints above $150,000 before 2027-07-01 00:00 UTC.',
        type: 'yesno',
        opening: { yes: 0.35, no: 0.65 },
        belief: 0.42,
        endDay: 210,
        fate: open,
        weight: 9,
        image: '/images/markets/btc-150k.png',
      },
      {
        title: 'Bitcoin up or down this week?',
        description: 'Compares the BTC/USD close at the end of this week with the close at its start.',
        type: 'updown',
        belief: 0.55,
        endDay: 3,
        openDay: -4,
        fate: open,
        weight: 6,
        image: '/images/markets/btc-week.png',
      },
      {
        title: 'Will a spot Solana ETF trade in the US by March 2027?',
        description: 'Resolves yes if a spot SOL exchange-traded fund begins trading on a US exchange before 2027-03-31.',
        type: 'yesno',
        belief: 0.62,
        endDay: 120,
        fate: open,
        weight: 4,
        image: '/images/markets/sol-etf.png',
      },
      {
        title: 'Ethereum above $4,000 on the last day of November?',
        description: 'ETH/USD spot close on the last day of November 2026.',
        type: 'yesno',
        belief: 0.3,
        endDay: -4,
        fate: { kind: 'resolve', outcome: 'no', day: -3 },
        weight: 5,
        image: '/images/markets/eth-4k.png',
      },
    ],
  },
  {
    title: '2028 US Presidential Election',
    description: 'Markets on the race for the White House.',
    category: 'politics',
    endDay: 710,
    featured: true,
    markets: [
      {
        title: 'Will the Democratic nominee win the 2028 presidential election?',
        description: 'Resolves on the Electoral College outcome certified by Congress.',
        type: 'yesno',
        belief: 0.51,
        endDay: 710,
        fate: open,
        weight: 8,
        image: '/images/markets/us-2028.png',
      },
      {
        title: 'Which party wins the 2028 popular vote?',
        description: 'The party whose candidate receives the most votes nationwide.',
        type: 'custom',
        labels: { yes: 'Democrats', no: 'Republicans' },
        belief: 0.56,
        endDay: 710,
        fate: open,
        weight: 4,
        image: '/images/markets/us-2028-popular.png',
      },
      {
        title: 'Will turnout in 2028 exceed 65% of eligible voters?',
        description: 'Per the United States Elections Project estimate of VEP turnout.',
        type: 'yesno',
        belief: 0.4,
        endDay: 710,
        fate: open,
        weight: 2,
        image: '/images/markets/us-2028-turnout.png',
      },
    ],
  },
  {
    title: 'Champions League Final 2027',
    description: 'The final in Madrid, late May 2027.',
    category: 'sports',
    endDay: 180,
    markets: [
      {
        title: 'Real Madrid vs Manchester City: result after 90 minutes',
        description: 'Home = Real Madrid, Away = Manchester City, Draw after regular time.',
        type: 'threeway',
        labels: { yes: 'Real Madrid', no: 'Manchester City', draw: 'Draw' },
        opening: { yes: 0.4, no: 0.35, draw: 0.25 },
        belief: [0.42, 0.33, 0.25],
        endDay: 180,
        fate: open,
        weight: 6,
        image: '/images/markets/ucl-final.png',
      },
      {
        title: 'Over 2.5 goals in the Champions League final?',
        description: 'Goals in regular time only.',
        type: 'yesno',
        belief: 0.52,
        endDay: 180,
        fate: open,
        weight: 3,
        image: '/images/markets/ucl-goals.png',
      },
    ],
  },
  {
    title: 'North London Derby, November 2026',
    description: 'Arsenal vs Tottenham at the Emirates.',
    category: 'sports',
    endDay: -9,
    markets: [
      {
        title: 'Arsenal vs Tottenham: result after 90 minutes',
        description: 'Home = Arsenal, Away = Tottenham.',
        type: 'threeway',
        labels: { yes: 'Arsenal', no: 'Tottenham', draw: 'Draw' },
        opening: { yes: 0.5, no: 0.25, draw: 0.25 },
        belief: [0.52, 0.22, 0.26],
        endDay: -9,
        fate: { kind: 'resolve', outcome: 'draw', day: -8 },
        weight: 7,
        image: '/images/markets/nld.png',
      },
      {
        title: 'Both teams to score in the North London Derby?',
        description: 'Each side scores at least once in regular time.',
        type: 'yesno',
        belief: 0.6,
        endDay: -9,
        fate: { kind: 'resolve', outcome: 'yes', day: -8 },
        weight: 3,
        image: '/images/markets/nld-btts.png',
      },
    ],
  },
  {
    title: 'AI frontier, 2027',
    description: 'Model releases and leaderboards.',
    category: 'tech',
    endDay: 220,
    markets: [
      {
        title: 'Will OpenAI release GPT-6 before July 2027?',
        description: 'A model publicly named GPT-6 generally available through the API or ChatGPT.',
        type: 'yesno',
        belief: 0.45,
        endDay: 220,
        fate: open,
        weight: 7,
        image: '/images/markets/gpt6.png',
      },
      {
        title: 'Which lab tops the LMArena text leaderboard on March 1, 2027?',
        description: 'The organisation of the first-ranked model on that date.',
        type: 'custom',
        labels: { yes: 'Google', no: 'Any other lab' },
        belief: 0.38,
        endDay: 95,
        fate: open,
        weight: 3,
        image: '/images/markets/lmarena.png',
      },
      {
        title: 'Will Apple ship a foldable iPhone in 2027?',
        description: 'A foldable iPhone available to order before 2027-12-31.',
        type: 'yesno',
        belief: 0.48,
        endDay: 400,
        fate: open,
        weight: 3,
        image: '/images/markets/foldable-iphone.png',
      },
    ],
  },
  {
    title: 'Federal Reserve, first quarter 2027',
    description: 'Rates, inflation and the stock market.',
    category: 'economy',
    endDay: 120,
    markets: [
      {
        title: 'Will the Fed cut rates at the March 2027 meeting?',
        description: 'Any reduction of the federal funds target range announced at the March FOMC meeting.',
        type: 'yesno',
        opening: { yes: 0.45, no: 0.55 },
        belief: 0.37,
        endDay: 110,
        fate: open,
        weight: 6,
        image: '/images/markets/fed-march.png',
      },
      {
        title: 'US CPI year over year above 3% in January 2027?',
        description: 'Headline CPI-U, as first published by the BLS.',
        type: 'yesno',
        belief: 0.33,
        endDay: 80,
        fate: open,
        weight: 3,
        image: '/images/markets/cpi.png',
      },
      {
        title: 'S&P 500 up or down in November 2026?',
        description: 'Compares the index close on the last trading day of November with that of October.',
        type: 'updown',
        belief: 0.6,
        endDay: -6,
        fate: { kind: 'resolve', outcome: 'yes', day: -5 },
        weight: 4,
        image: '/images/markets/spx-nov.png',
      },
    ],
  },
  {
    title: 'Space race 2027',
    description: 'Launches, landings and returns.',
    category: 'science',
    endDay: 400,
    markets: [
      {
        title: 'Will Artemis III land astronauts on the Moon before 2028?',
        description: 'A crewed lunar landing by the Artemis III mission before 2028-01-01.',
        type: 'yesno',
        belief: 0.22,
        endDay: 400,
        fate: open,
        weight: 3,
        image: '/images/markets/artemis3.png',
      },
      {
        title: 'Will Starship complete an orbital propellant transfer demo in 2026?',
        description: 'SpaceX announces a successful ship-to-ship propellant transfer in orbit.',
        type: 'yesno',
        belief: 0.35,
        endDay: -12,
        fate: { kind: 'cancel', day: -11 },
        weight: 2,
        image: '/images/markets/starship-prop.png',
      },
    ],
  },
];

export const DEMO_STANDALONE: readonly DemoStandalone[] = [
  {
    title: 'Will the Best Picture Oscar go to a streaming release in 2027?',
    description: 'A film first released by a streaming service wins Best Picture at the 2027 Academy Awards.',
    category: 'entertainment',
    type: 'yesno',
    belief: 0.3,
    endDay: 100,
    fate: open,
    weight: 3,
    image: '/images/markets/oscars.png',
  },
  {
    title: 'Ethereum up or down in the next 24 hours?',
    description: 'ETH/USD close 24 hours after this market opened, compared with the open.',
    category: 'crypto',
    type: 'updown',
    belief: 0.5,
    endDay: 1,
    openDay: -1,
    fate: open,
    weight: 5,
    featured: true,
    image: '/images/markets/eth-24h.png',
  },
  {
    title: 'Will the EU approve the AI Act delay package before 2027?',
    description: 'Formal adoption by the Council and Parliament before 2027-01-01.',
    category: 'politics',
    type: 'yesno',
    belief: 0.55,
    endDay: 35,
    fate: open,
    weight: 3,
    image: '/images/markets/eu-ai-act.png',
  },
  {
    title: 'Will the Lakers make the 2027 NBA playoffs?',
    description: 'Including qualification through the play-in tournament.',
    category: 'sports',
    type: 'yesno',
    belief: 0.58,
    endDay: 140,
    fate: open,
    weight: 3,
    image: '/images/markets/lakers.png',
  },
  {
    title: 'Will the proposed chip-maker merger close by year end?',
    description: 'The announced merger completes before 2026-12-31. The deal was withdrawn, so the market was cancelled.',
    category: 'tech',
    type: 'yesno',
    belief: 0.5,
    endDay: 30,
    fate: { kind: 'cancel', day: -15 },
    weight: 2,
    image: '/images/markets/chip-merger.png',
  },
  {
    title: 'Will Germany enter a technical recession in 2027?',
    description: 'Two consecutive quarters of negative GDP growth reported by Destatis during 2027.',
    category: 'economy',
    type: 'yesno',
    belief: 0.3,
    endDay: 380,
    fate: { kind: 'pending' },
    weight: 0,
    image: '/images/markets/de-recession.png',
  },
  {
    title: 'Will a Tesla robotaxi service launch in a European city in 2026?',
    description: 'Paid, driverless rides open to the public in any European city.',
    category: 'tech',
    type: 'yesno',
    belief: 0.1,
    endDay: -2,
    fate: { kind: 'resolve', outcome: 'no', day: -1 },
    weight: 3,
    image: '/images/markets/robotaxi-eu.png',
  },
];

/** Handles shown for some demo wallets (the rest stay anonymous). */
export const DEMO_USERNAMES: readonly string[] = [
  'satoshi_fan', 'polymath', 'degenerate_gambler', 'quant_queen', 'marketmaker', 'oracle', 'bayesian',
  'long_vol', 'contrarian', 'base_rate', 'kelly_bettor', 'superforecaster', 'whale_watch', 'mean_revert',
  'fed_watcher', 'stat_nerd', 'pundit_fader', 'gm_trader', 'the_drifter', 'midnight_oil',
];
