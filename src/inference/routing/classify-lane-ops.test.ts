import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyLane, type Lane } from './classify-lane.ts';

const lane = (text: string): Lane => classifyLane({ messages: [{ role: 'user', content: [{ type: 'text', text }] }], tools: [], stop: [], stream: false });

function expectAll(expected: Lane, texts: readonly string[]): void {
  for (const text of texts) assert.equal(lane(text), expected, text);
}

describe('classifyLane: operations requests', () => {
  it('puts questions about clusters, infrastructure code, containers, web servers, CI and services in code', () => {
    expectAll('code', [
      'kubectl get pods shows CrashLoopBackOff, why?',
      'Why does my pod stay in Pending state?',
      'ImagePullBackOff on a private registry image, how to fix?',
      "What's the difference between a Deployment and a StatefulSet?",
      'The ingress controller returns 404 for every path',
      'cron job in k8s not firing at the scheduled time',
      'terraform plan wants to destroy my RDS instance',
      'docker compose up fails with "network proxy declared as external, but could not be found"',
      "My nginx config returns 502 Bad Gateway for /api, what's wrong?",
      'GitHub Actions workflow fails with "Resource not accessible by integration"',
      'How do I make a systemd service start after the network is up?',
      'How do I roll back a Helm release?',
      'ansible playbook says UNREACHABLE! Failed to connect to the host via ssh',
    ]);
  });

  it('leaves everyday requests that share their words where they were', () => {
    expectAll('general', [
      'What is a pod of whales?',
      'Which coffee pods work with a Nespresso machine?',
      'How do I steer a sailboat with the helm?',
      'Give me tips for container gardening on a balcony.',
      'Recommend a good sci-fi book about terraforming Mars.',
      'Our team is deploying to a new office next month, how should I plan the move?',
      'Write a short story about a sysadmin who falls in love.',
      'How do I compose a short piece of music for piano?',
      "What's the history of shipping containers?",
      'How should I prepare for a job interview at a cloud company?',
      'What are fun things to do in Paris?',
      'Write a poem about mathematics.',
    ]);
    expectAll('math', ['A car travels 240 km in 3 hours. What is its average speed?', 'What is the probability of rolling two sixes in a row?']);
    expectAll('multilingual', ['Translate "the meeting is postponed until Friday" into Italian.', '¿Qué puedo cocinar con arroz, huevos y espinacas?']);
  });
});
