"""Tyranid Attack!: choosing the four Marines before a level or a campaign. Pure."""

from dicepod.rules import tyranid as rules
from dicepod.ui.lists import ListScreen
from dicepod.ui.screen import POP


class Team(ListScreen):
    """Choose the 4 Marines: OK toggles one; 'Start' when four are chosen."""

    def __init__(self, level, campaign):
        super().__init__("", [])
        self.level = level
        self.campaign = campaign
        self.chosen = [True, True, True, True, False]
        self.refresh()

    def refresh(self):
        """Rows with check marks."""
        items = []
        for m in range(5):
            items.append(("[x] " if self.chosen[m] else "[ ] ") + rules.MARINES[m])
        items.append("Start")
        self.items = items
        self.title = "Team %d/4 L%d%s" % (
            self.chosen.count(True),
            self.level,
            " camp" if self.campaign else "",
        )
        self.dirty = True

    def choose(self, app, index):
        """Toggle, or start the level."""
        if index < 5:
            self.chosen[index] = not self.chosen[index]
            self.refresh()
            return None
        team = []
        for m in range(5):
            if self.chosen[m]:
                team.append(m)
        team = tuple(team)
        if len(team) != rules.TEAM:
            raise ValueError("choose 4 Marines")
        app.session.play(("start", (self.level, self.campaign) + team))
        return POP
