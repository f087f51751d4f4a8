"""Small helpers to write blind7 proactive scenarios.

Times are written in the scenario's local time ("2026-09-07 00:40") and turned into ISO strings
with the right UTC offset. GitHub payloads are octokit-shaped webhook payloads generated from
scratch here (deterministic ids from hashes), inlined in the event body.
"""
import base64
import hashlib
import json
import os
import uuid
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)


def _num(*parts, lo=10_000_000, span=90_000_000):
    d = hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()
    return lo + int(d[:12], 16) % span


def _sha(*parts):
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()


def _node(prefix, kind, n):
    return base64.b64encode(f"{prefix}:{kind}{n}".encode()).decode()


def _z(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- GitHub objects

def gh_user(login, type_="User"):
    uid = _num("user", login)
    api = f"https://api.github.com/users/{login}"
    return {
        "login": login, "id": uid, "node_id": _node("04", "User", uid),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4", "gravatar_id": "",
        "url": api, "html_url": f"https://github.com/{login}",
        "followers_url": f"{api}/followers", "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}", "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions", "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos", "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events", "type": type_, "site_admin": False,
    }


def gh_org(login):
    oid = _num("org", login)
    api = f"https://api.github.com/orgs/{login}"
    return {
        "login": login, "id": oid, "node_id": _node("012", "Organization", oid), "url": api,
        "repos_url": f"{api}/repos", "events_url": f"{api}/events", "hooks_url": f"{api}/hooks",
        "issues_url": f"{api}/issues", "members_url": f"{api}/members{{/member}}",
        "public_members_url": f"{api}/public_members{{/member}}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{oid}?v=4", "description": "",
    }


def gh_repo(full_name, pushed_at, language=None, open_issues=7):
    owner, name = full_name.split("/")
    rid = _num("repo", full_name)
    api = f"https://api.github.com/repos/{full_name}"
    web = f"https://github.com/{full_name}"
    r = {
        "id": rid, "node_id": _node("010", "Repository", rid), "name": name, "full_name": full_name,
        "private": True, "owner": gh_user(owner, "Organization"), "html_url": web,
        "description": None, "fork": False, "url": api,
    }
    for k, suffix in [
        ("forks_url", "/forks"), ("keys_url", "/keys{/key_id}"),
        ("collaborators_url", "/collaborators{/collaborator}"), ("teams_url", "/teams"),
        ("hooks_url", "/hooks"), ("issue_events_url", "/issues/events{/number}"),
        ("events_url", "/events"), ("assignees_url", "/assignees{/user}"),
        ("branches_url", "/branches{/branch}"), ("tags_url", "/tags"),
        ("blobs_url", "/git/blobs{/sha}"), ("git_tags_url", "/git/tags{/sha}"),
        ("git_refs_url", "/git/refs{/sha}"), ("trees_url", "/git/trees{/sha}"),
        ("statuses_url", "/statuses/{sha}"), ("languages_url", "/languages"),
        ("stargazers_url", "/stargazers"), ("contributors_url", "/contributors"),
        ("subscribers_url", "/subscribers"), ("subscription_url", "/subscription"),
        ("commits_url", "/commits{/sha}"), ("git_commits_url", "/git/commits{/sha}"),
        ("comments_url", "/comments{/number}"), ("issue_comment_url", "/issues/comments{/number}"),
        ("contents_url", "/contents/{+path}"), ("compare_url", "/compare/{base}...{head}"),
        ("merges_url", "/merges"), ("archive_url", "/{archive_format}{/ref}"),
        ("downloads_url", "/downloads"), ("issues_url", "/issues{/number}"),
        ("pulls_url", "/pulls{/number}"), ("milestones_url", "/milestones{/number}"),
        ("notifications_url", "/notifications{?since,all,participating}"),
        ("labels_url", "/labels{/name}"), ("releases_url", "/releases{/id}"),
        ("deployments_url", "/deployments"),
    ]:
        r[k] = api + suffix
    r.update({
        "created_at": "2023-06-12T08:00:00Z", "updated_at": pushed_at, "pushed_at": pushed_at,
        "git_url": f"git://github.com/{full_name}.git", "ssh_url": f"git@github.com:{full_name}.git",
        "clone_url": f"{web}.git", "svn_url": web, "homepage": None,
        "size": _num("size", full_name, lo=1000, span=20000), "stargazers_count": 0,
        "watchers_count": 0, "language": language, "has_issues": True, "has_projects": False,
        "has_downloads": True, "has_wiki": False, "has_pages": False, "forks_count": 0,
        "mirror_url": None, "archived": False, "disabled": False, "open_issues_count": open_issues,
        "license": None, "forks": 0, "open_issues": open_issues, "watchers": 0,
        "default_branch": "main", "visibility": "private",
    })
    return r


class PR:
    """State of one pull request, to render payload snapshots."""

    def __init__(self, repo, number, title, body, author, head_ref, created, commits=3,
                 additions=120, deletions=30, changed_files=6, labels=()):
        self.repo, self.number, self.title, self.body = repo, number, title, body
        self.author, self.head_ref, self.created = author, head_ref, created
        self.sha = _sha("head", repo, number)
        self.base_sha = _sha("base", repo, number)
        self.commits, self.additions, self.deletions = commits, additions, deletions
        self.changed_files, self.labels = changed_files, list(labels)
        self.reviewers = []
        self.id = _num("pr", repo, number, lo=1_000_000_000, span=900_000_000)

    def snapshot(self, updated):
        repo = gh_repo(self.repo, updated)
        api = f"https://api.github.com/repos/{self.repo}"
        web = f"https://github.com/{self.repo}"
        n = self.number
        org = self.repo.split("/")[0]
        labels = [{
            "id": _num("label", self.repo, l), "node_id": _node("05", "Label", _num("label", self.repo, l)),
            "url": f"{api}/labels/{l}", "name": l, "color": "c5def5", "default": False, "description": None,
        } for l in self.labels]
        return {
            "url": f"{api}/pulls/{n}", "id": self.id, "node_id": _node("011", "PullRequest", self.id),
            "html_url": f"{web}/pull/{n}", "diff_url": f"{web}/pull/{n}.diff",
            "patch_url": f"{web}/pull/{n}.patch", "issue_url": f"{api}/issues/{n}", "number": n,
            "state": "open", "locked": False, "title": self.title, "user": gh_user(self.author),
            "body": self.body, "created_at": self.created, "updated_at": updated, "closed_at": None,
            "merged_at": None, "merge_commit_sha": None, "assignee": None, "assignees": [],
            "requested_reviewers": [gh_user(r) for r in self.reviewers], "requested_teams": [],
            "labels": labels, "milestone": None, "draft": False,
            "commits_url": f"{api}/pulls/{n}/commits", "review_comments_url": f"{api}/pulls/{n}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{n}/comments", "statuses_url": f"{api}/statuses/{self.sha}",
            "head": {"label": f"{org}:{self.head_ref}", "ref": self.head_ref, "sha": self.sha,
                     "user": gh_user(org, "Organization"), "repo": repo},
            "base": {"label": f"{org}:main", "ref": "main", "sha": self.base_sha,
                     "user": gh_user(org, "Organization"), "repo": repo},
            "_links": {
                "self": {"href": f"{api}/pulls/{n}"}, "html": {"href": f"{web}/pull/{n}"},
                "issue": {"href": f"{api}/issues/{n}"}, "comments": {"href": f"{api}/issues/{n}/comments"},
                "review_comments": {"href": f"{api}/pulls/{n}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{api}/pulls/{n}/commits"},
                "statuses": {"href": f"{api}/statuses/{self.sha}"},
            },
            "author_association": "MEMBER", "auto_merge": None, "active_lock_reason": None,
            "merged": False, "mergeable": None, "rebaseable": None, "mergeable_state": "unknown",
            "merged_by": None, "comments": 0, "review_comments": 0, "maintainer_can_modify": False,
            "commits": self.commits, "additions": self.additions, "deletions": self.deletions,
            "changed_files": self.changed_files,
        }


# ---------------------------------------------------------------- scenario

class Scenario:
    def __init__(self, name, scope, tz, start, end, quiet=("22:00", "07:00"), prefix="x", **config):
        self.name, self.scope, self.tzname = name, scope, tz
        self.tz = ZoneInfo(tz)
        self.start, self.end = self.dt(start), self.dt(end)
        self.quiet_hours = quiet
        self.config = {"quiet_hours": list(quiet), **config}
        self.events, self.expect, self.forbid = [], [], []
        self.prefix, self.n = prefix, 0
        self.session = "s1"
        self.last = None
        self.silence = False

    # time helpers
    def dt(self, s):
        fmt = "%Y-%m-%d %H:%M:%S" if s.count(":") == 2 else "%Y-%m-%d %H:%M"
        return datetime.strptime(s, fmt).replace(tzinfo=self.tz)

    def t(self, s):
        return self.dt(s).isoformat()

    def _add(self, at, subject, body):
        self.events.append({"at": at.isoformat(), "subject": subject, "body": body})
        self.last = at

    # conversation
    def user(self, when, text, session=None):
        if session:
            self.session = session
        self.n += 1
        eid = f"{self.prefix}-{self.n}"
        at = self.dt(when)
        self._add(at, "memubot.in.conversation.main", {
            "id": eid, "scope": self.scope, "agent": "main", "session": self.session,
            "role": "user", "text": text, "ts": at.isoformat()})
        return eid

    def bot(self, text, after=30):
        self.n += 1
        eid = f"{self.prefix}-{self.n}"
        at = self.last + timedelta(seconds=after)
        self._add(at, "memubot.in.conversation.main", {
            "id": eid, "scope": self.scope, "agent": "main", "session": self.session,
            "role": "assistant", "text": text, "ts": at.isoformat()})
        return eid

    # e-mail
    def email(self, key, when, frm, to, subject, text, labels=("INBOX",), cc=(), thread=None):
        eid = f"m-{key}"
        at = self.dt(when)
        self._add(at, "memubot.in.email", {
            "id": eid, "scope": self.scope, "from": frm, "to": list(to), "cc": list(cc),
            "subject": subject, "date": at.isoformat(), "thread": thread or f"th-{key}",
            "labels": list(labels), "text": text})
        return eid

    # GitHub
    def _gh(self, key, when, event, action, payload):
        eid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"blind7/{self.name}/{key}"))
        at = self.dt(when)
        self._add(at, "memubot.in.github", {
            "id": eid, "scope": self.scope, "event": event, "action": action,
            "payload": payload, "received_at": at.isoformat()})
        return eid

    def _common(self, pr, sender, at):
        org = pr.repo.split("/")[0]
        return {"repository": gh_repo(pr.repo, _z(at)), "organization": gh_org(org),
                "sender": gh_user(sender),
                "installation": {"id": _num("inst", org), "node_id": _node("023", "Installation", _num("inst", org))}}

    def review_requested(self, key, when, pr, reviewer, sender=None):
        at = self.dt(when)
        if reviewer not in pr.reviewers:
            pr.reviewers.append(reviewer)
        payload = {"action": "review_requested", "number": pr.number,
                   "pull_request": pr.snapshot(_z(at)), "requested_reviewer": gh_user(reviewer)}
        payload.update(self._common(pr, sender or pr.author, at))
        return self._gh(key, when, "pull_request", "review_requested", payload)

    def review_submitted(self, key, when, pr, reviewer, state, body):
        at = self.dt(when)
        if reviewer in pr.reviewers:
            pr.reviewers.remove(reviewer)
        rid = _num("review", pr.repo, pr.number, key, lo=1_000_000_000, span=900_000_000)
        api = f"https://api.github.com/repos/{pr.repo}/pulls/{pr.number}"
        html = f"https://github.com/{pr.repo}/pull/{pr.number}#pullrequestreview-{rid}"
        payload = {"action": "submitted", "review": {
            "id": rid, "node_id": _node("017", "PullRequestReview", rid), "user": gh_user(reviewer),
            "body": body, "commit_id": pr.sha, "submitted_at": _z(at), "state": state,
            "html_url": html, "pull_request_url": api, "author_association": "MEMBER",
            "_links": {"html": {"href": html}, "pull_request": {"href": api}}},
            "pull_request": pr.snapshot(_z(at))}
        payload.update(self._common(pr, reviewer, at))
        return self._gh(key, when, "pull_request_review", "submitted", payload)

    def check_suite(self, key, when, pr, conclusion, message, sender=None):
        at = self.dt(when)
        sid = _num("suite", pr.repo, pr.number, key, lo=10_000_000_000, span=900_000_000)
        api = f"https://api.github.com/repos/{pr.repo}"
        repo_min = {"id": _num("repo", pr.repo), "url": api, "name": pr.repo.split("/")[1]}
        author = gh_user(pr.author)
        payload = {"action": "completed", "check_suite": {
            "id": sid, "node_id": _node("014", "CheckSuite", sid), "head_branch": pr.head_ref,
            "head_sha": pr.sha, "status": "completed", "conclusion": conclusion,
            "url": f"{api}/check-suites/{sid}", "before": _sha("before", pr.repo, pr.number, key),
            "after": pr.sha,
            "pull_requests": [{"url": f"{api}/pulls/{pr.number}", "id": pr.id, "number": pr.number,
                               "head": {"ref": pr.head_ref, "sha": pr.sha, "repo": repo_min},
                               "base": {"ref": "main", "sha": pr.base_sha, "repo": repo_min}}],
            "app": {"id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg=",
                    "owner": gh_user("github", "Organization"), "name": "GitHub Actions",
                    "description": "Automate your workflow from idea to production",
                    "external_url": "https://help.github.com/en/actions",
                    "html_url": "https://github.com/apps/github-actions",
                    "created_at": "2018-07-30T09:30:17Z", "updated_at": "2019-12-10T19:04:12Z",
                    "permissions": {}, "events": []},
            "created_at": _z(at - timedelta(minutes=14)), "updated_at": _z(at),
            "rerequestable": True, "runs_rerequestable": True, "latest_check_runs_count": 4,
            "check_runs_url": f"{api}/check-suites/{sid}/check-runs",
            "head_commit": {"id": pr.sha, "tree_id": _sha("tree", pr.repo, pr.number),
                            "message": message, "timestamp": _z(at - timedelta(minutes=16)),
                            "author": {"name": author["login"], "email": f"{author['login']}@users.noreply.github.com"},
                            "committer": {"name": author["login"], "email": f"{author['login']}@users.noreply.github.com"}}}}
        payload.update(self._common(pr, sender or pr.author, at))
        return self._gh(key, when, "check_suite", "completed", payload)

    # rules
    def exp(self, lo, hi, mentions, evidence, kind=None):
        r = {}
        if kind:
            r["kind"] = kind
        r.update({"window": [self.t(lo), self.t(hi)], "mentions_any": list(mentions),
                  "evidence_from": list(evidence)})
        self.expect.append(r)

    def no(self, why, lo=None, hi=None, mentions=None, kind=None):
        r = {}
        if kind:
            r["kind"] = kind
        if lo or hi:
            r["window"] = [self.t(lo) if lo else self.start.isoformat(),
                           self.t(hi) if hi else self.end.isoformat()]
        if mentions:
            r["mentions_any"] = list(mentions)
        r["why"] = why
        self.forbid.append(r)

    def quiet(self):
        qs, qe = self.quiet_hours
        day = self.start.date() - timedelta(days=1)
        while day <= self.end.date():
            lo = datetime.strptime(f"{day} {qs}", "%Y-%m-%d %H:%M").replace(tzinfo=self.tz)
            nxt = day + timedelta(days=1) if qs > qe else day
            hi = datetime.strptime(f"{nxt} {qe}", "%Y-%m-%d %H:%M").replace(tzinfo=self.tz) - timedelta(seconds=1)
            lo, hi = max(lo, self.start), min(hi, self.end)
            if lo < hi:
                self.forbid.append({"window": [lo.isoformat(), hi.isoformat()], "why": "quiet hours"})
            day += timedelta(days=1)

    def silent(self, lang="en"):
        self.silence = True
        for k in ("reminder", "follow_up", "conflict"):
            why = (f"silence scenario: no {k} is right" if lang == "en"
                   else f"静默场景：任何 {k} 都不该发")
            self.forbid.append({"kind": k, "why": why})

    def write(self):
        doc = {"name": self.name, "scope": self.scope, "timezone": self.tzname,
               "start": self.start.isoformat(), "end": self.end.isoformat(), "config": self.config,
               "events": sorted(self.events, key=lambda e: datetime.fromisoformat(e["at"])),
               "expect": self.expect, "forbid": self.forbid}
        path = os.path.join(OUT, self.name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
        return path
